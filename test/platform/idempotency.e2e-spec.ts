/**
 * Idempotency-Key, exercised through POST /provisioning/workspaces, whose effect
 * (a workspace row) can be counted.
 */
import request from 'supertest';
import { RequestMethod } from '@nestjs/common';
import { INTERCEPTORS_METADATA } from '@nestjs/common/constants.js';
import { routesOfExpressApp } from '../../src/common/http/route-table.js';
import { handlersFor, IdempotencyInterceptor } from '../../src/common/idempotency/idempotency.interceptor.js';
import pg from 'pg';
import { api, createTenant, type TestTenant, useApp, app, db } from '../helpers/app.js';
import { ensureBuilt, type Service, startService, stopAllServices } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';

describe('Idempotency-Key', () => {
  useApp();
  afterAll(() => stopAllServices());

  beforeAll(async () => {
    ensureBuilt();
    // Concurrent requests need a listening server (supertest would otherwise listen once per request).
    await app.listen(0, '127.0.0.1');
    // An expired record, before this process's first claim (which sweeps expired records).
    await db.query(
      `INSERT INTO idempotency_keys (tenant, key, fingerprint, state, response_status, response_sealed, expires_at)
       VALUES ('org:00000000-0000-4000-8000-000000000000', 'stale', 'x', 'completed', 201, 'v1.x.y.z', now() - interval '1 minute')`,
    );
  });

  /** The built service as deployed (`node dist/main.js`, API role), listening on a free port. */
  const startApi = (env: Record<string, string>): Promise<Service> =>
    startService({ role: 'api', env: { LOG_LEVEL: 'warn', ...env }, readyTimeoutMs: 30_000 });

  interface Answer {
    error: { type: string };
    data: { workspace: { id: string } };
  }

  /** Holds the organization's row lock, so a workspace create for it waits inside its handler. */
  const lockOrganization = async (orgId: string): Promise<pg.Client> => {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    await client.query('BEGIN');
    await client.query('SELECT id FROM organizations WHERE id = $1 FOR UPDATE', [orgId]);
    return client;
  };

  const record = async (
    t: TestTenant,
    key: string,
  ): Promise<{ state: string; lease_left: number } | undefined> => {
    const rows = (await db.query(
      `SELECT state, extract(epoch FROM expires_at - now())::float8 AS lease_left
         FROM idempotency_keys WHERE tenant = $1 AND key = $2`,
      [`org:${t.organizationId}`, key],
    )) as Array<{ state: string; lease_left: number }>;
    return rows[0];
  };

  const workspaceCount = async (orgId: string): Promise<number> => {
    const [{ n }] = (await db.query('SELECT count(*)::int AS n FROM workspaces WHERE organization_id = $1', [
      orgId,
    ])) as Array<{ n: number }>;
    return n;
  };

  const create = (t: TestTenant, key: string | undefined, body: unknown): request.Test => {
    const req = api(app, t.provisioningToken).post('/provisioning/workspaces');
    return (key === undefined ? req : req.set('Idempotency-Key', key)).send(body as object);
  };

  it('is bound to every POST and PATCH handler of every controller, and to no other', async () => {
    const interceptor = app.get(IdempotencyInterceptor);
    const bound = (handler: object): boolean =>
      ((Reflect.getMetadata(INTERCEPTORS_METADATA, handler) as unknown[] | undefined) ?? []).includes(
        interceptor,
      );
    const writes = handlersFor(app, [RequestMethod.POST, RequestMethod.PATCH]);
    const others = handlersFor(app, [
      RequestMethod.GET,
      RequestMethod.DELETE,
      RequestMethod.PUT,
      RequestMethod.ALL,
    ]);
    // Route layers Express holds for POST and PATCH, less the wildcard one a module's middleware
    // (the inbound body reader) is mounted on: each remaining one is a controller handler.
    const writeRoutes = routesOfExpressApp(app.getHttpAdapter().getInstance()).filter(
      (r) => (r.method === 'post' || r.method === 'patch') && !r.path.includes('*'),
    );
    expect(writes.length).toBe(writeRoutes.length);
    expect(writes.filter((h) => !bound(h))).toEqual([]);
    expect(others.length).toBeGreaterThan(10);
    expect(others.filter(bound)).toEqual([]);

    // And it acts on a PATCH in another module: the replay carries the header and the first body.
    const t = await createTenant(app);
    const created = await api(app, t.token)
      .post('/contacts')
      .send({ email: 'idem-patch@example.com', first_name: 'Idem' });
    expect(created.status).toBe(200);
    const patch = (title: string): request.Test =>
      api(app, t.token)
        .patch(`/contacts/${created.body.data.id}`)
        .set('Idempotency-Key', 'patch-once')
        .send({ title });
    const first = await patch('First');
    expect(first.status).toBe(200);
    const again = await patch('First');
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await patch('Second')).body.error.type).toBe('idempotency_key_reused');
  });

  it('runs the handler once for 50 concurrent identical POSTs; answers are equal or 409', async () => {
    const t = await createTenant(app, { maxWorkspaces: 100 });
    const before = await workspaceCount(t.organizationId);
    const body = { name: 'Concurrent', config: { domain_daily_send_limit: 42 } };
    const answers = await Promise.all(Array.from({ length: 50 }, () => create(t, 'same-key-50', body)));
    expect(await workspaceCount(t.organizationId)).toBe(before + 1);
    const ok = answers.filter((r) => r.status === 201);
    const busy = answers.filter((r) => r.status === 409);
    expect(ok.length + busy.length).toBe(50);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    for (const r of busy) expect(r.body.error.type).toBe('idempotency_key_in_use');
    const first = JSON.stringify(ok[0].body);
    for (const r of ok) expect(JSON.stringify(r.body)).toBe(first);
    expect(ok.filter((r) => r.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    // After the dust settles, the key replays the one answer.
    const replay = await create(t, 'same-key-50', body);
    expect(replay.status).toBe(201);
    expect(JSON.stringify(replay.body)).toBe(first);
  });

  it('replays the stored status and body with Idempotent-Replayed: true', async () => {
    const t = await createTenant(app, { maxWorkspaces: 100 });
    const body = { name: 'Replayed' };
    const original = await create(t, 'replay-1', body);
    expect(original.status).toBe(201);
    expect(original.headers['idempotent-replayed']).toBeUndefined();
    const replay = await create(t, 'replay-1', body);
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers['content-type']).toMatch(/^application\/json/);
    expect(replay.body).toEqual(original.body);
    expect(replay.body.data.api_key.token).toBe(original.body.data.api_key.token);
    // Same content, keys in another order: the canonical fingerprint matches.
    const reordered = await api(app, t.provisioningToken)
      .post('/provisioning/workspaces')
      .set('Idempotency-Key', 'replay-2')
      .send({ config: { ai_provider: 'openai', ai_model: 'm' }, name: 'Order' });
    const again = await api(app, t.provisioningToken)
      .post('/provisioning/workspaces')
      .set('Idempotency-Key', 'replay-2')
      .set('Content-Type', 'application/json')
      .send('{"name":"Order","config":{"ai_model":"m","ai_provider":"openai"}}');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(reordered.body);
    const [row] = (await db.query(
      `SELECT response_status, state FROM idempotency_keys WHERE tenant = $1 AND key = 'replay-1'`,
      [`org:${t.organizationId}`],
    )) as Array<{ response_status: number; state: string }>;
    expect(row).toEqual({ response_status: 201, state: 'completed' });
  });

  it('answers 422 idempotency_key_reused when the key comes back with another body or path', async () => {
    const t = await createTenant(app, { maxWorkspaces: 100 });
    expect((await create(t, 'reuse', { name: 'First' })).status).toBe(201);
    const other = await create(t, 'reuse', { name: 'Second' });
    expect(other.status).toBe(422);
    expect(other.body.error).toMatchObject({ type: 'idempotency_key_reused', field: 'Idempotency-Key' });
    const otherPath = await api(app, t.provisioningToken)
      .post(`/provisioning/workspaces/${t.workspaceId}/seed`)
      .set('Idempotency-Key', 'reuse')
      .send({ name: 'First' });
    expect(otherPath.status).toBe(422);
    expect(otherPath.body.error.type).toBe('idempotency_key_reused');
    expect(await workspaceCount(t.organizationId)).toBe(2);
  });

  it('rejects a malformed Idempotency-Key with 422 naming the header', async () => {
    const t = await createTenant(app, { maxWorkspaces: 100 });
    const before = await workspaceCount(t.organizationId);
    for (const bad of ['', 'k'.repeat(256), 'clé', 'has space', 'tab\there']) {
      const res = await create(t, bad, { name: 'Bad key' });
      expect({ bad, status: res.status }).toEqual({ bad, status: 422 });
      expect(res.body.error).toMatchObject({ type: 'validation_failed', field: 'Idempotency-Key' });
    }
    expect(await workspaceCount(t.organizationId)).toBe(before);
    const longest = await create(t, '~'.repeat(255), { name: 'Longest key' });
    expect(longest.status).toBe(201);
    const visible = await create(t, "!#$%&'()*+,-./09:;<=>?@AZ[\\]^_`az{|}~", { name: 'Visible key' });
    expect(visible.status).toBe(201);
  });

  it('stores responses sealed: the minted token is not in the table in plaintext', async () => {
    const t = await createTenant(app, { maxWorkspaces: 100 });
    const res = await create(t, 'sealed-key', { name: 'Sealed' });
    expect(res.status).toBe(201);
    const token: string = res.body.data.api_key.token;
    const rows = (await db.query(`SELECT * FROM idempotency_keys WHERE tenant = $1`, [
      `org:${t.organizationId}`,
    ])) as Array<Record<string, unknown>>;
    expect(rows).toHaveLength(1);
    const text = JSON.stringify(rows);
    expect(text).not.toContain(token);
    expect(text).not.toContain(token.slice(7, 30));
    expect(text).not.toContain('Sealed');
    expect(String(rows[0].response_sealed)).toMatch(/^v2\.[0-9a-f]{8}\./);
    const expires = new Date(rows[0].expires_at as string).getTime() - Date.now();
    expect(expires).toBeGreaterThan(23 * 3600_000);
    expect(expires).toBeLessThanOrEqual(24 * 3600_000);
  });

  it('stores a 4xx answer and replays it, even after the cause went away', async () => {
    const t = await createTenant(app, { maxWorkspaces: 1 });
    const first = await create(t, 'capped', { name: 'Over the cap' });
    expect(first.status).toBe(403);
    expect(first.body.error.type).toBe('plan_limit_exceeded');
    await db.query('UPDATE organizations SET max_workspaces = 10 WHERE id = $1', [t.organizationId]);
    const replay = await create(t, 'capped', { name: 'Over the cap' });
    expect(replay.status).toBe(403);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(await workspaceCount(t.organizationId)).toBe(1);

    const invalid = await create(t, 'invalid', { name: 'x', config: { message_body_retention_days: 0 } });
    expect(invalid.status).toBe(422);
    const invalidReplay = await create(t, 'invalid', {
      name: 'x',
      config: { message_body_retention_days: 0 },
    });
    expect(invalidReplay.status).toBe(422);
    expect(invalidReplay.headers['idempotent-replayed']).toBe('true');
    expect(invalidReplay.body).toEqual(invalid.body);
    expect(invalid.body.error.field).toBe('config.message_body_retention_days');
  });

  it('scopes keys per tenant: the same key in two organizations creates two workspaces', async () => {
    const a = await createTenant(app, { maxWorkspaces: 10 });
    const b = await createTenant(app, { maxWorkspaces: 10 });
    const body = { name: 'Shared key name' };
    const ra = await create(a, 'tenant-scoped', body);
    const rb = await create(b, 'tenant-scoped', body);
    expect([ra.status, rb.status]).toEqual([201, 201]);
    expect(rb.headers['idempotent-replayed']).toBeUndefined();
    expect(ra.body.data.workspace.id).not.toBe(rb.body.data.workspace.id);
    expect(ra.body.data.workspace.organization_id).toBe(a.organizationId);
    expect(rb.body.data.workspace.organization_id).toBe(b.organizationId);
  });

  it('forgets records after 24 hours: expired ones are swept, and a reused expired key runs again', async () => {
    await waitFor(async () => {
      const rows = (await db.query(`SELECT 1 FROM idempotency_keys WHERE key = 'stale'`)) as unknown[];
      return rows.length === 0;
    }, 'the expired record to be swept');
    const t = await createTenant(app, { maxWorkspaces: 10 });
    const body = { name: 'Expires' };
    const first = await create(t, 'expiring', body);
    expect(first.status).toBe(201);
    await db.query(
      `UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE tenant = $1 AND key = 'expiring'`,
      [`org:${t.organizationId}`],
    );
    const again = await create(t, 'expiring', body);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(again.body.data.workspace.id).not.toBe(first.body.data.workspace.id);
    const replay = await create(t, 'expiring', body);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.data.workspace.id).toBe(again.body.data.workspace.id);
  });

  it('gives a processing claim a 60 s lease, not 24 h; the finished record keeps 24 h', async () => {
    const t = await createTenant(app, { maxWorkspaces: 10 });
    const lock = await lockOrganization(t.organizationId);
    const pending = create(t, 'leased', { name: 'Leased' }).then((r) => r);
    try {
      await waitFor(async () => (await record(t, 'leased'))?.state === 'processing', 'the claim');
      const { lease_left } = (await record(t, 'leased'))!;
      expect(lease_left).toBeGreaterThan(50);
      expect(lease_left).toBeLessThanOrEqual(60);
      const meanwhile = await create(t, 'leased', { name: 'Leased' });
      expect(meanwhile.status).toBe(409);
      expect(meanwhile.body.error.type).toBe('idempotency_key_in_use');
    } finally {
      await lock.query('ROLLBACK');
      await lock.end();
    }
    expect((await pending).status).toBe(201);
    const done = (await record(t, 'leased'))!;
    expect(done.state).toBe('completed');
    expect(done.lease_left).toBeGreaterThan(23 * 3600);
  });

  it('a key whose request died mid-flight (SIGKILL) answers 409 until its lease ends, then runs once', async () => {
    const t = await createTenant(app, { maxWorkspaces: 10 });
    // A 4 s lease (instead of 60 s) so the test waits for the lease to run out for real.
    const server = await startApi({ IDEMPOTENCY_LEASE_SECONDS: '4' });
    const before = await workspaceCount(t.organizationId);
    const lock = await lockOrganization(t.organizationId);
    const body = { name: 'Crashed' };
    try {
      const inFlight = fetch(`${server.url}/api/v1/provisioning/workspaces`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${t.provisioningToken}`,
          'content-type': 'application/json',
          'idempotency-key': 'crash-key',
        },
        body: JSON.stringify(body),
      }).catch(() => 'connection lost');
      await waitFor(async () => (await record(t, 'crash-key'))?.state === 'processing', 'the claim');
      // The handler is waiting for the organization's lock; the process dies there.
      await server.kill('SIGKILL');
      expect(await inFlight).toBe('connection lost');
    } finally {
      await server.kill('SIGKILL');
      await lock.query('ROLLBACK');
      await lock.end();
    }
    const left = (await record(t, 'crash-key'))!;
    expect(left.state).toBe('processing');
    expect(left.lease_left).toBeLessThanOrEqual(4);
    // Before the lease ends: still in use.
    const early = await create(t, 'crash-key', body);
    expect(early.status).toBe(409);
    expect(early.body.error.type).toBe('idempotency_key_in_use');
    expect(await workspaceCount(t.organizationId)).toBe(before);
    // After it: the retry takes the claim over and runs, once; the next one is a replay.
    await new Promise((r) => setTimeout(r, Math.max(0, left.lease_left * 1000) + 200));
    const retry = await create(t, 'crash-key', body);
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    const replay = await create(t, 'crash-key', body);
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.data.workspace.id).toBe(retry.body.data.workspace.id);
    expect(await workspaceCount(t.organizationId)).toBe(before + 1);
  }, 60_000);

  it('renews the lease of a live request: a slow handler keeps its key past the lease', async () => {
    const t = await createTenant(app, { maxWorkspaces: 10 });
    const server = await startApi({ IDEMPOTENCY_LEASE_SECONDS: '3' });
    const before = await workspaceCount(t.organizationId);
    const lock = await lockOrganization(t.organizationId);
    const body = { name: 'Slow' };
    const send = (): Promise<{ status: number; replayed: string | null; body: Answer }> =>
      fetch(`${server.url}/api/v1/provisioning/workspaces`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${t.provisioningToken}`,
          'content-type': 'application/json',
          'idempotency-key': 'slow-key',
        },
        body: JSON.stringify(body),
      }).then(async (r) => ({
        status: r.status,
        replayed: r.headers.get('idempotent-replayed'),
        body: (await r.json()) as Answer,
      }));
    try {
      const slow = send();
      await waitFor(async () => (await record(t, 'slow-key'))?.state === 'processing', 'the claim');
      // Twice the lease: without renewal another request would take the key over here.
      await new Promise((r) => setTimeout(r, 6000));
      expect((await record(t, 'slow-key'))!.lease_left).toBeGreaterThan(0);
      const second = await send();
      expect(second.status).toBe(409);
      expect(second.body.error.type).toBe('idempotency_key_in_use');
      await lock.query('ROLLBACK');
      const first = await slow;
      expect(first.status).toBe(201);
      const replay = await send();
      expect(replay.replayed).toBe('true');
      expect(replay.body.data.workspace.id).toBe(first.body.data.workspace.id);
      expect(await workspaceCount(t.organizationId)).toBe(before + 1);
    } finally {
      await lock.end();
      await server.kill('SIGKILL');
    }
  }, 60_000);

  it('lets exactly one of many retries racing after an expired lease take the claim over', async () => {
    const t = await createTenant(app, { maxWorkspaces: 100 });
    const before = await workspaceCount(t.organizationId);
    // The state a crash leaves behind: a processing record whose lease ran out.
    await db.query(
      `INSERT INTO idempotency_keys (tenant, key, fingerprint, state, created_at, expires_at)
       VALUES ($1, 'raced', 'from-the-dead-request', 'processing', now() - interval '2 minutes', now() - interval '1 minute')`,
      [`org:${t.organizationId}`],
    );
    const body = { name: 'Raced' };
    const answers = await Promise.all(Array.from({ length: 20 }, () => create(t, 'raced', body)));
    const ran = answers.filter((r) => r.status === 201 && r.headers['idempotent-replayed'] === undefined);
    expect(ran).toHaveLength(1);
    for (const r of answers) {
      if (r === ran[0]) continue;
      if (r.status === 409) expect(r.body.error.type).toBe('idempotency_key_in_use');
      else {
        expect(r.status).toBe(201);
        expect(r.headers['idempotent-replayed']).toBe('true');
        expect(r.body.data.workspace.id).toBe(ran[0].body.data.workspace.id);
      }
    }
    expect(await workspaceCount(t.organizationId)).toBe(before + 1);
  });

  it('ignores the header on GET and without it runs every POST', async () => {
    const t = await createTenant(app, { maxWorkspaces: 10 });
    const list = await api(app, t.provisioningToken)
      .get('/provisioning/workspaces')
      .set('Idempotency-Key', '');
    expect(list.status).toBe(200);
    expect((await create(t, undefined, { name: 'No key' })).status).toBe(201);
    expect((await create(t, undefined, { name: 'No key' })).status).toBe(201);
    expect(await workspaceCount(t.organizationId)).toBe(3);
  });
});
