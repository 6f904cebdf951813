/**
 * Tenants and HTTP for the fault suite: an organization, a workspace and a workspace key minted with
 * the service's own code (no Nest app in the test process), and small HTTP clients for a service
 * running as a separate process: JSON calls with a deadline, and raw requests that send any bytes
 * with any headers and tolerate a server that answers before reading the whole body.
 */
import { ApiKeysRepository } from '../../src/modules/api-keys/api-keys.repository.js';
import { OrganizationsRepository } from '../../src/modules/organizations/organizations.repository.js';
import { WorkspacesRepository } from '../../src/modules/workspaces/workspaces.repository.js';
import { request as httpRequest } from 'node:http';
import type { DataSource } from 'typeorm';
import { WORKSPACE_SCOPES } from '../../src/common/auth/scopes.js';
import { ApiKeysService } from '../../src/modules/api-keys/api-keys.service.js';
import type { ApiKeyAuthService } from '../../src/modules/api-keys/api-key-auth.service.js';
import { Organization } from '../../src/modules/organizations/entities/organization.entity.js';
import {
  OrganizationsService,
  type PlanInput,
} from '../../src/modules/organizations/organizations.service.js';
import { WorkspacesService } from '../../src/modules/workspaces/workspaces.service.js';

export interface FaultTenant {
  organizationId: string;
  workspaceId: string;
  /** Workspace key with every workspace scope. */
  token: string;
}

let counter = 0;

/** A fresh organization (with `plan`), workspace and all-scopes workspace key (`keyRateLimit` per minute). */
export async function createFaultTenant(
  db: DataSource,
  plan: PlanInput = {},
  keyRateLimit: number | null = null,
): Promise<FaultTenant> {
  counter += 1;
  const org = await new OrganizationsService(
    new OrganizationsRepository(db.getRepository(Organization)),
  ).create(`Faults ${counter}`, plan);
  const { workspace } = await new WorkspacesService(db, new WorkspacesRepository(db)).create(
    org.id,
    `Faults ${counter}`,
  );
  // Minting needs only the database (the auth service is used by rotate, not by create).
  const keys = new ApiKeysService(new ApiKeysRepository(db), undefined as unknown as ApiKeyAuthService);
  const { token } = await keys.create({
    tier: 'workspace',
    workspaceId: workspace.id,
    scopes: [...WORKSPACE_SCOPES],
    rateLimit: keyRateLimit,
  });
  return { organizationId: org.id, workspaceId: workspace.id, token };
}

export interface JsonResponse {
  status: number;
  // Parsed JSON body (or the raw text when it is not JSON); `undefined` for an empty body.
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  headers: Headers;
  ms: number;
}

/**
 * A JSON client for `baseUrl` (`/api/v1` is prefixed to paths that do not start with `/health`).
 * Every call has a deadline (`timeoutMs`): a call that does not answer in time rejects.
 */
export function jsonClient(baseUrl: string, token?: string, timeoutMs = 30_000) {
  const call = async (method: string, path: string, body?: unknown): Promise<JsonResponse> => {
    const started = performance.now();
    const res = await fetch(`${baseUrl}${path.startsWith('/health') ? '' : '/api/v1'}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    let parsed: unknown = text || undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON: keep the text */
    }
    return { status: res.status, body: parsed, headers: res.headers, ms: performance.now() - started };
  };
  return {
    get: (path: string) => call('GET', path),
    post: (path: string, body?: unknown) => call('POST', path, body ?? {}),
    patch: (path: string, body?: unknown) => call('PATCH', path, body ?? {}),
  };
}

export interface RawResponse {
  status: number;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

/**
 * Sends `body` as is (no encoding added) with `headers` and resolves with the response. The server
 * may answer before it has read the body (401 first, 413 early) and close the connection: write
 * errors after a response has started are expected and ignored; an error before any response, or no
 * response within `timeoutMs`, rejects.
 */
export function rawRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: Buffer,
  timeoutMs = 60_000,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (err: Error | null, value?: RawResponse): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(value!);
    };
    const req = httpRequest(url, {
      method,
      headers: { ...headers, 'content-length': String(body.length) },
      agent: false,
    });
    const timer = setTimeout(() => {
      req.destroy();
      finish(new Error(`no response from ${method} ${url} within ${timeoutMs} ms`));
    }, timeoutMs);
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      const done = (): void => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        finish(null, { status: res.statusCode ?? 0, text, json });
        req.destroy();
      };
      res.on('error', () => undefined);
      // 'close' also covers a connection the server closed right after its answer.
      res.on('end', done);
      res.on('close', done);
    });
    req.on('error', (err) => {
      // After the response head arrived, a reset of our upload is the server refusing to read it.
      if (answered) return;
      finish(err);
    });
    req.end(body);
  });
}
