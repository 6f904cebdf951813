/**
 * Generated from the route table, so a new route is covered automatically: on every /api/v1 route
 * with a path id, another workspace's id, a missing id and malformed ids all answer the same 404.
 */
import { randomUUID } from 'node:crypto';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { DataSource } from 'typeorm';
import { DataSource as DataSourceToken } from 'typeorm';
import request from 'supertest';
import { routesOfExpressApp } from '../../src/common/http/route-table.js';
import { bootApp, createTenant, type TestTenant } from '../helpers/app.js';
import { ensureBuilt, startService, stopAllServices } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';

/** Routes that authenticate differently (not with an API key) and are tested in their own suites. */
const OWN_AUTH = [/^\/api\/v1\/inbound\//];
/** Path parameters that name no tenant's resource (a provider name: unknown ones are 404 in test/inboxes/oauth.e2e-spec.ts). */
const NOT_IDS = [/\/inboxes\/oauth\/:provider\//];

/** A body that passes validation, so the answer is about the id (default `{}`). */
const VALID_BODIES: Array<[RegExp, object]> = [
  [/\/seed$/, { config: {} }],
  [/\/stop$/, { reason: 'route table test' }],
  [/\/campaigns\/:campaign\/enrollments$/, { contact_id: 1 }],
  [/\/threads\/:thread\/messages$/, { body: 'route table test' }],
  [/\/threads\/:thread$/, { category: 'interested' }],
  [
    /\/campaigns\/:campaign\/subsequences$/,
    { name: 'route table test', trigger: { type: 'completed' }, sequence_id: 1 },
  ],
];

const MALFORMED = ['abc', '0', '-1', '1'.repeat(30), '1.5', '%20'];

async function insert(db: DataSource, sql: string, params: unknown[]): Promise<string> {
  const rows = (await db.query(sql, params)) as Array<{ id: string | number }>;
  return String(rows[0].id);
}

describe('every id route answers 404 the same way for foreign, missing and malformed ids', () => {
  let app: NestExpressApplication;
  let db: DataSource;
  let mine: TestTenant;
  let other: TestTenant;
  const foreign = new Map<string, string>();

  beforeAll(async () => {
    app = await bootApp();
    db = app.get(DataSourceToken);
    mine = await createTenant(app);
    other = await createTenant(app);
    const ws = other.workspaceId;
    const contact = await insert(
      db,
      `INSERT INTO contacts (workspace_id, email) VALUES ($1, 'x@foreign.test') RETURNING id`,
      [ws],
    );
    const sequence = await insert(
      db,
      `INSERT INTO sequences (workspace_id, name) VALUES ($1, 's') RETURNING id`,
      [ws],
    );
    const campaign = await insert(
      db,
      `INSERT INTO campaigns (workspace_id, name) VALUES ($1, 'c') RETURNING id`,
      [ws],
    );
    const enrollment = await insert(
      db,
      `INSERT INTO enrollments (workspace_id, campaign_id, contact_id) VALUES ($1, $2, $3) RETURNING id`,
      [ws, campaign, contact],
    );
    const batch = await insert(db, `INSERT INTO imports (workspace_id) VALUES ($1) RETURNING id`, [ws]);
    const inbox = await insert(
      db,
      `INSERT INTO inboxes (workspace_id, email, domain, smtp_sealed, inbound_secret_hash)
       VALUES ($1, 'me@foreign.test', 'foreign.test', 'x', 'x') RETURNING id`,
      [ws],
    );
    const thread = await insert(
      db,
      `INSERT INTO threads (workspace_id, inbox_id, contact_id, subject) VALUES ($1, $2, $3, 's') RETURNING id`,
      [ws, inbox, contact],
    );
    const message = await insert(
      db,
      `INSERT INTO messages (workspace_id, thread_id, direction, kind, from_address, to_address, status)
       VALUES ($1, $2, 'outbound', 'email', 'a@x.test', 'b@x.test', 'sent') RETURNING id`,
      [ws, thread],
    );
    const endpoint = await insert(
      db,
      `INSERT INTO webhook_endpoints (workspace_id, url, events, secret_sealed)
       VALUES ($1, 'https://example.com/h', '{contact}', 'x') RETURNING id`,
      [ws],
    );
    const delivery = await insert(
      db,
      `INSERT INTO webhook_deliveries (workspace_id, endpoint_id, event_id, event)
       VALUES ($1, $2, $3, 'contact.created') RETURNING id`,
      [ws, endpoint, randomUUID()],
    );
    const subsequence = await insert(
      db,
      `INSERT INTO subsequences (workspace_id, campaign_id, name, trigger, sequence_id, position)
       VALUES ($1, $2, 'sub', '{"type":"completed"}', $3, 1) RETURNING id`,
      [ws, campaign, sequence],
    );
    const fixtures: Record<string, string> = {
      subsequence,
      contact,
      sequence,
      campaign,
      enrollment,
      import: batch,
      inbox,
      thread,
      message,
      id: endpoint,
      delivery_id: delivery,
      workspace_uuid: other.workspaceId,
    };
    for (const [k, v] of Object.entries(fixtures)) foreign.set(k, v);
  });
  afterAll(() => app.close());

  it('covers every route with a path parameter', async () => {
    const routes = routesOfExpressApp(app.getHttpAdapter().getInstance()).filter(
      (r) =>
        r.path.startsWith('/api/v1/') &&
        r.path.includes('/:') &&
        !OWN_AUTH.some((re) => re.test(r.path)) &&
        !NOT_IDS.some((re) => re.test(r.path)),
    );
    expect(routes.length).toBeGreaterThanOrEqual(20);
    const server = app.getHttpServer();
    for (const route of routes) {
      const params = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
      for (const p of params) {
        if (!foreign.has(p))
          throw new Error(`no foreign-tenant fixture for :${p} (route ${route.path}); add one`);
      }
      const isUuid = (p: string): boolean => /uuid|inbox/.test(p);
      const cases: Array<{ label: string; value: (p: string) => string }> = [
        { label: 'foreign', value: (p) => foreign.get(p)! },
        { label: 'missing', value: (p) => (isUuid(p) ? randomUUID() : '2147483000') },
        ...MALFORMED.map((m) => ({ label: `malformed ${m}`, value: () => m })),
      ];
      const token = route.path.startsWith('/api/v1/provisioning/') ? mine.provisioningToken : mine.token;
      const bodies = new Set<string>();
      for (const c of cases) {
        const url = route.path.replace(/:(\w+)/g, (_, p: string) => c.value(p));
        const method = route.method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete' | 'put';
        let req = request(server)[method](url).set('Authorization', `Bearer ${token}`);
        if (method !== 'get' && method !== 'delete') {
          req = req.send(VALID_BODIES.find(([re]) => re.test(route.path))?.[1] ?? {});
        }
        const res = await req;
        if (res.status !== 404) {
          throw new Error(
            `${route.method.toUpperCase()} ${url} (${c.label}) answered ${res.status}: ${res.text}`,
          );
        }
        expect(res.body.error.type).toBe('not_found');
        bodies.add(res.text);
      }
      if (bodies.size !== 1) {
        throw new Error(
          `${route.method.toUpperCase()} ${route.path}: 404 bodies differ: ${[...bodies].join(' | ')}`,
        );
      }
    }
  });
});

describe('unknown paths, inside /api/v1 or outside it', () => {
  let app: NestExpressApplication;
  beforeAll(async () => {
    app = await bootApp();
  });
  afterAll(() => app.close());

  it('answer the JSON error envelope (404), while /docs, /health, /metrics and /u/:token keep working', async () => {
    const server = app.getHttpServer();
    for (const path of [
      '/nope',
      '/nope/deeper?x=1',
      '/api',
      '/api/v2/contacts',
      '/api/v1/nope',
      '/healthz',
    ]) {
      for (const method of ['get', 'post', 'delete'] as const) {
        const res = await request(server)[method](path);
        expect({ path, method, status: res.status, type: res.headers['content-type'] }).toEqual({
          path,
          method,
          status: 404,
          type: 'application/json; charset=utf-8',
        });
        expect(res.body).toEqual({ error: { type: 'not_found', message: 'Not found' } });
      }
    }
    // A known path with another method is still a 405 with Allow.
    const wrongMethod = await request(server).post('/health/live');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.allow).toBe('GET, HEAD');
    expect((await request(server).get('/health/live')).status).toBe(200);
    const docs = await request(server).get('/docs/');
    expect(docs.status).toBe(200);
    expect(docs.headers['content-type']).toMatch(/text\/html/);
    expect((await request(server).get('/api/v1/openapi.json')).status).toBe(200);
    expect((await request(server).get('/metrics')).status).not.toBe(404);
    // The unsubscribe page answers a bad token itself: its small HTML page, not the API envelope.
    const unsubscribe = await request(server).get('/u/not-a-token');
    expect(unsubscribe.status).toBe(404);
    expect(unsubscribe.headers['content-type']).toMatch(/text\/html/);
  });
});

describe('the start-up log', () => {
  beforeAll(() => ensureBuilt());
  afterAll(() => stopAllServices());

  it('at info is at most 20 lines and names the address once (everything the service and workers print up to ready)', async () => {
    const all = await startService({ role: 'all' });
    // Workers report after the listener: give them a moment to print what they print at start.
    await new Promise((r) => setTimeout(r, 2000));
    const lines = all
      .output()
      .split('\n')
      .filter((l) => l.trim());
    // The start-up log is what comes up to the ready line. (After it, the workers report on what they
    // find: in this shared test database, other files' inboxes.)
    const ready = lines.findIndex((l) => l.includes('listening on'));
    expect(ready).toBeGreaterThanOrEqual(0);
    const out = lines.slice(0, ready + 1);
    // The lines themselves are in the comparison, so a failure shows what was printed.
    expect({ atMost20: out.length <= 20, out }).toEqual({ atMost20: true, out });
    expect(lines.filter((l) => l.includes('listening on'))).toHaveLength(1);
    expect(lines.join('\n')).not.toContain('Mapped {');
  }, 120_000);

  it('at debug shows each route with its real path', async () => {
    const api = await startService({ role: 'api', env: { LOG_LEVEL: 'debug' } });
    // The logger's own ready line comes after every route line.
    const log = await waitFor(
      async () => /"msg":"listening on/.test(api.output()) && api.output(),
      'the log',
    );
    for (const route of [
      '/health/live, GET',
      '/health/ready, GET',
      '/metrics, GET',
      '/u/:token, GET',
      '/u/:token, POST',
    ]) {
      expect(log).toContain(`Mapped {${route}} route`);
    }
    expect(log).toContain('Mapped {/api/v1/contacts, GET} route');
    // No heading or line names a path the service does not serve.
    expect(log).not.toMatch(/\/api\/v1\/(health|metrics|u)\b/);
    expect(log).toMatch(/"msg":"HealthController:"/);
  }, 120_000);
});
