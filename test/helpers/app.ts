/**
 * The app fixture: boots the real application once per test file (real PostgreSQL and Redis), and
 * gives each test its own tenant.
 *
 * Most files call `useApp()` inside their `describe` and then use `app`, `db`, `q`, `all` and `one`
 * imported from here: Jest gives every test file its own module registry, so these bindings are that
 * file's app, set in the fixture's `beforeAll` (so, like any `let`, read them inside hooks and tests,
 * not at the top of a `describe`). Files that need a second app, or the app module imported only after
 * setting the environment, call `bootApp()` themselves.
 */
import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { resetConfig } from '../../src/config/app-config.js';
import { queries } from './db.js';
import type { DnsServer } from './dns-server.js';
import { createHttpApp } from '../../src/app.factory.js';
import { runMigrations } from '../../src/database/migrate.js';
import { recordTraffic } from './openapi-traffic.js';
import { ApiKeysService } from '../../src/modules/api-keys/api-keys.service.js';
import {
  OrganizationsService,
  type PlanInput,
} from '../../src/modules/organizations/organizations.service.js';
import { WorkspacesService } from '../../src/modules/workspaces/workspaces.service.js';
import { PROVISIONING_SCOPES, WORKSPACE_SCOPES } from '../../src/common/auth/scopes.js';
import type { CreateKeyInput } from '../../src/modules/api-keys/api-keys.service.js';
import type { WorkspaceId } from '../../src/common/tenant/workspace-id.js';

export async function bootApp(): Promise<NestExpressApplication> {
  await runMigrations();
  const app = await createHttpApp();
  // The run's traffic, for the check against the API document (test/openapi/traffic.e2e-spec.ts).
  if (process.env.OPENAPI_TRAFFIC_FILE) recordTraffic(app.getHttpServer(), process.env.OPENAPI_TRAFFIC_FILE);
  return app;
}

/** An app of its own pointed at a local DNS server, with a tenant; `close` stops both. */
export interface DnsApp {
  app: NestExpressApplication;
  db: DataSource;
  t: TestTenant;
  close(): Promise<void>;
}

/**
 * Boots an app whose resolver is `dns` (DNS_SERVERS), with `env` and the send and IMAP loops quiet,
 * and creates a tenant. `close` closes the app and the DNS server and unsets what it set.
 */
export async function bootAppWithDns(dns: DnsServer, env: Record<string, string> = {}): Promise<DnsApp> {
  const vars = { DNS_SERVERS: dns.address, IMAP_POLL_SECONDS: '3600', SEND_TICK_MS: '3600000', ...env };
  Object.assign(process.env, vars);
  resetConfig();
  const app = await bootApp();
  const t = await createTenant(app);
  return {
    app,
    db: app.get(DataSource),
    t,
    close: async () => {
      await app.close();
      await dns.close();
      for (const name of Object.keys(vars)) delete process.env[name];
      resetConfig();
    },
  };
}

/** The app `useApp()` booted for this test file (undefined before its `beforeAll`). */
export let app: NestExpressApplication;
/** Its DataSource. */
export let db: DataSource;
/** Raw SQL on `db` (./db.ts). */
export const { q, all, one } = queries(() => db);
/** An enrollment's state and why it stopped, as the tests of replies, bounces and complaints read it. */
export const enrollment = (id: number) =>
  one<{ status: string; stop_reason: string | null }>(
    'SELECT status, stop_reason FROM enrollments WHERE id = $1',
    [id],
  );

/** The environment of the engine tests: a fast send tick, no gap between sends, IMAP polled hourly. */
export const FAST_SENDING = { SEND_TICK_MS: '50', SEND_MIN_GAP_SECONDS: '0', IMAP_POLL_SECONDS: '3600' };

export interface AppFixtureOptions {
  /** Set in process.env (then the config re-read) before the app boots; the file's own process.env. */
  env?: Record<string, string>;
  /** Timeout of the boot hook. */
  timeoutMs?: number;
}

/**
 * Boots the app in `beforeAll` (after setting `options.env`) and closes it in `afterAll`. Call it
 * before the file's own hooks: Jest runs `beforeAll` and `afterAll` hooks in the order they are
 * declared, so the app is up before the file's setup and closed before its servers stop.
 */
export function useApp(options: AppFixtureOptions = {}): void {
  beforeAll(async () => {
    if (options.env) {
      Object.assign(process.env, options.env);
      resetConfig();
    }
    app = await bootApp();
    db = app.get(DataSource);
  }, options.timeoutMs);
  afterAll(async () => {
    await app?.close();
  });
}

export interface TestTenant {
  organizationId: string;
  workspaceId: WorkspaceId;
  /** Workspace key with every workspace scope. */
  token: string;
  /** Provisioning key with both provisioning scopes. */
  provisioningToken: string;
  keyId: number;
  provisioningKeyId: number;
}

let counter = 0;

export async function createTenant(app: NestExpressApplication, plan: PlanInput = {}): Promise<TestTenant> {
  counter += 1;
  const org = await app.get(OrganizationsService).create(`Org ${counter}`, plan);
  const { workspace } = await app.get(WorkspacesService).create(org.id, `Workspace ${counter}`);
  const keys = app.get(ApiKeysService);
  const ws = await keys.create({
    tier: 'workspace',
    workspaceId: workspace.id,
    scopes: [...WORKSPACE_SCOPES],
  });
  const pk = await keys.create({
    tier: 'provisioning',
    organizationId: org.id,
    scopes: [...PROVISIONING_SCOPES],
  });
  return {
    organizationId: org.id,
    workspaceId: workspace.id,
    token: ws.token,
    provisioningToken: pk.token,
    keyId: ws.key.id,
    provisioningKeyId: pk.key.id,
  };
}

export async function mintKey(app: NestExpressApplication, input: CreateKeyInput): Promise<string> {
  return (await app.get(ApiKeysService).create(input)).token;
}

/** A key of one workspace with only `scopes` (the scope checks). */
export function workspaceKey(
  app: NestExpressApplication,
  workspaceId: string,
  scopes: string[],
): Promise<string> {
  return mintKey(app, { tier: 'workspace', workspaceId, scopes });
}

/** supertest with a bearer token. */
export function api(app: NestExpressApplication, token?: string) {
  const agent = request(app.getHttpServer());
  const wrap = (req: request.Test): request.Test =>
    token ? req.set('Authorization', `Bearer ${token}`) : req;
  return {
    get: (path: string) => wrap(agent.get(`/api/v1${path}`)),
    post: (path: string) => wrap(agent.post(`/api/v1${path}`)),
    patch: (path: string) => wrap(agent.patch(`/api/v1${path}`)),
    delete: (path: string) => wrap(agent.delete(`/api/v1${path}`)),
    put: (path: string) => wrap(agent.put(`/api/v1${path}`)),
  };
}
