/**
 * Webhooks end to end: real app, real Postgres, real HTTP receivers on 127.0.0.1 (allowed through
 * WEBHOOK_ALLOWED_TEST_HOSTS), a zero retry schedule and a short attempt timeout.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verify as octokitVerify } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import { DataSource } from 'typeorm';
import type { EventType } from '../../src/modules/events/event-types.js';
import type { WorkspaceId } from '../../src/common/tenant/workspace-id.js';
import { recordEvent, recordEvents } from '../helpers/domain-writes.js';
import { EventRetentionService } from '../../src/modules/webhooks/event-retention.service.js';
import { api, createTenant, type TestTenant, workspaceKey, useApp, app } from '../helpers/app.js';
import { waitFor } from '../helpers/wait.js';

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

describe('webhooks', () => {
  useApp({
    env: {
      WEBHOOK_ALLOWED_TEST_HOSTS: '127.0.0.1',
      WEBHOOK_RETRY_SCHEDULE: '0,0,0,0,0',
      WEBHOOK_TIMEOUT_MS: '400',
      WEBHOOK_POLL_MS: '50',
    },
  });
  let t: TestTenant;
  let server: Server;
  let base: string;
  const received: Received[] = [];
  const handlers = new Map<string, Handler>();

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const path = (req.url ?? '/').split('?')[0];
        received.push({ path, headers: req.headers, body });
        const h = handlers.get(path);
        if (h) h(req, res, body);
        else res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    t = await createTenant(app);
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const at = (path: string): Received[] => received.filter((r) => r.path === path);

  const emit = async (
    workspaceId: WorkspaceId,
    type: EventType,
    data: Record<string, unknown>,
  ): Promise<void> => {
    await app.get(DataSource).transaction((m) => recordEvent(m, { workspaceId, type, data }));
  };

  const createEndpoint = async (path: string, events: string[] = ['contact'], tenant = t) => {
    const res = await api(app, tenant.token)
      .post('/webhook-endpoints')
      .send({ url: `${base}${path}`, events, description: path });
    expect(res.status).toBe(201);
    return res.body.data as { id: number; secret: string; status: string };
  };

  const deliveries = async (endpointId: number) => {
    const res = await api(app, t.token).get(`/webhook-endpoints/${endpointId}/deliveries`);
    expect(res.status).toBe(200);
    return res.body.data as Array<Record<string, unknown>>;
  };

  const endpoint = async (id: number) =>
    (await api(app, t.token).get(`/webhook-endpoints/${id}`)).body.data as Record<string, unknown>;

  it('manages endpoints: secret shown once, validation, pagination, rotate, delete, tenancy, scope', async () => {
    const created = await createEndpoint('/crud', ['contact', 'email']);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created).toMatchObject({
      url: `${base}/crud`,
      events: ['contact', 'email'],
      description: '/crud',
      status: 'enabled',
      disabled_reason: null,
      consecutive_failures: 0,
    });
    const shown = await api(app, t.token).get(`/webhook-endpoints/${created.id}`);
    expect(shown.status).toBe(200);
    expect(shown.body.data).not.toHaveProperty('secret');
    expect(JSON.stringify(shown.body)).not.toContain(created.secret);

    const bad = async (body: Record<string, unknown>, field: string): Promise<void> => {
      const res = await api(app, t.token).post('/webhook-endpoints').send(body);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ type: 'validation_failed', field });
    };
    await bad({ url: 'https://10.0.0.1/x', events: ['contact'] }, 'url');
    await bad({ url: 'http://example.com/x', events: ['contact'] }, 'url');
    await bad({ url: 'https://169.254.169.254/', events: ['contact'] }, 'url');
    await bad({ url: `${base}/x`, events: ['opens'] }, 'events');
    await bad({ url: `${base}/x`, events: [] }, 'events');
    await bad({ url: `${base}/x` }, 'events');
    await bad({ url: `${base}/x`, events: ['contact'], secret: 'mine' }, 'secret');

    const patched = await api(app, t.token)
      .patch(`/webhook-endpoints/${created.id}`)
      .send({ events: ['message'], description: null });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ events: ['message'], description: null });
    const badPatch = await api(app, t.token)
      .patch(`/webhook-endpoints/${created.id}`)
      .send({ url: 'https://[::ffff:127.0.0.1]/' });
    expect(badPatch.status).toBe(422);
    expect(badPatch.body.error.field).toBe('url');

    const rotated = await api(app, t.token).post(`/webhook-endpoints/${created.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.secret).toMatch(/^whsec_/);
    expect(rotated.body.data.secret).not.toBe(created.secret);

    await createEndpoint('/crud2');
    const page1 = await api(app, t.token).get('/webhook-endpoints?per_page=1');
    expect(page1.status).toBe(200);
    expect(page1.body.data).toHaveLength(1);
    expect(page1.body.next_cursor).toEqual(expect.any(String));
    const page2 = await api(app, t.token).get(
      `/webhook-endpoints?per_page=1&cursor=${encodeURIComponent(page1.body.next_cursor as string)}`,
    );
    expect(page2.body.data[0].id).not.toBe(page1.body.data[0].id);

    const other = await createTenant(app);
    expect((await api(app, other.token).get(`/webhook-endpoints/${created.id}`)).status).toBe(404);
    expect((await api(app, other.token).delete(`/webhook-endpoints/${created.id}`)).status).toBe(404);
    expect((await api(app, other.token).get(`/webhook-endpoints/${created.id}/deliveries`)).status).toBe(404);
    expect((await api(app, t.token).get('/webhook-endpoints/abc')).status).toBe(404);

    const readOnly = await workspaceKey(app, t.workspaceId, ['contacts:read']);
    const forbidden = await api(app, readOnly).get('/webhook-endpoints');
    expect(forbidden.status).toBe(403);

    expect((await api(app, t.token).delete(`/webhook-endpoints/${created.id}`)).status).toBe(204);
    expect((await api(app, t.token).get(`/webhook-endpoints/${created.id}`)).status).toBe(404);
  });

  it('delivers signed envelopes that verify with octokit and standardwebhooks, only for subscribed families and the own workspace', async () => {
    const ep = await createEndpoint('/signed', ['contact']);
    const other = await createTenant(app);
    await emit(t.workspaceId, 'message.sent', { message: { id: 1 } });
    await emit(other.workspaceId, 'contact.created', { contact: { id: 99 } });
    await emit(t.workspaceId, 'contact.created', { contact: { id: 7, email: 'ü@example.com' } });
    const [got] = await waitFor(async () => at('/signed').length > 0 && at('/signed'), 'a signed delivery');
    // The unsubscribed family and the other workspace's event never arrive.
    await waitFor(
      async () => (await deliveries(ep.id)).every((d) => d.status === 'succeeded') || undefined,
      'delivery recorded',
    );
    expect(at('/signed')).toHaveLength(1);

    const envelope = JSON.parse(got.body) as Record<string, unknown>;
    expect(envelope).toEqual({
      id: expect.any(String),
      version: 'v1',
      event: 'contact.created',
      occurred_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      workspace_id: t.workspaceId,
      data: { contact: { id: 7, email: 'ü@example.com' } },
    });
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['x-service-event-id']).toBe(envelope.id);
    expect(got.headers['x-service-event']).toBe('contact.created');
    expect(got.headers['webhook-id']).toBe(envelope.id);
    expect(await octokitVerify(ep.secret, got.body, got.headers['x-service-signature'] as string)).toBe(true);
    const wh = new Webhook(ep.secret);
    expect(
      wh.verify(got.body, {
        'webhook-id': got.headers['webhook-id'] as string,
        'webhook-timestamp': got.headers['webhook-timestamp'] as string,
        'webhook-signature': got.headers['webhook-signature'] as string,
      }),
    ).toEqual(envelope);

    const [d] = await deliveries(ep.id);
    expect(d).toMatchObject({
      event_id: envelope.id,
      event: 'contact.created',
      status: 'succeeded',
      attempts: 1,
      last_status_code: 200,
      last_error: null,
      next_attempt_at: null,
    });

    // Redeliver: 202, and the same event id arrives again.
    const re = await api(app, t.token).post(
      `/webhook-endpoints/${ep.id}/deliveries/${d.id as number}/redeliver`,
    );
    expect(re.status).toBe(202);
    await waitFor(async () => at('/signed').length === 2, 'the redelivery');
    expect(at('/signed')[1].headers['x-service-event-id']).toBe(envelope.id);
    expect(
      (await api(app, t.token).post(`/webhook-endpoints/${ep.id}/deliveries/999999/redeliver`)).status,
    ).toBe(404);
  });

  it("refuses to redeliver an event retention removed (409), and finishes deliveries whose event is gone instead of letting them hold back other tenants' retries", async () => {
    const db = app.get(DataSource);
    const ep = await createEndpoint('/expired');
    await emit(t.workspaceId, 'contact.created', { contact: { id: 7 } });
    const [d] = await waitFor(async () => {
      const list = await deliveries(ep.id);
      return list[0]?.status === 'succeeded' && list;
    }, 'the delivery');
    // Retention: the event is past EVENT_RETENTION_DAYS, its finished delivery (written later) is not yet.
    await db.query(`UPDATE events SET created_at = now() - interval '31 days' WHERE id = $1`, [d.event_id]);
    await db.query(`UPDATE webhook_deliveries SET created_at = now() - interval '29 days' WHERE id = $1`, [
      d.id,
    ]);
    await app.get(EventRetentionService).sweepOnce();
    expect(await db.query(`SELECT 1 FROM events WHERE id = $1`, [d.event_id])).toHaveLength(0);
    const re = await api(app, t.token).post(
      `/webhook-endpoints/${ep.id}/deliveries/${d.id as number}/redeliver`,
    );
    expect(re.status).toBe(409);
    expect(re.body.error.type).toBe('conflict');
    expect((await deliveries(ep.id))[0]).toMatchObject({ id: d.id, status: 'succeeded', attempts: 1 });

    // 200 deliveries whose event is gone, due before anything else (as a redelivery of an expired
    // event used to leave them), and another tenant's delivery whose first attempt fails.
    await db.query(
      `INSERT INTO webhook_deliveries (workspace_id, endpoint_id, event_id, event, status, next_attempt_at)
       SELECT $1, $2, gen_random_uuid(), 'contact.created', 'pending', now() - interval '1 hour'
       FROM generate_series(1, 200)`,
      [t.workspaceId, ep.id],
    );
    const other = await createTenant(app);
    let calls = 0;
    handlers.set('/other-retry', (_req, res) => {
      calls += 1;
      res.writeHead(calls === 1 ? 503 : 200).end();
    });
    const otherEp = await createEndpoint('/other-retry', ['contact'], other);
    await emit(other.workspaceId, 'contact.created', { contact: { id: 8 } });
    await waitFor(async () => calls >= 2, "the other tenant's retry", 10_000);
    const orphans = (await db.query(
      `SELECT status, last_error_class, last_error, next_attempt_at FROM webhook_deliveries
       WHERE endpoint_id = $1 AND id <> $2`,
      [ep.id, d.id],
    )) as Array<{
      status: string;
      last_error_class: string;
      last_error: string;
      next_attempt_at: Date | null;
    }>;
    expect(orphans).toHaveLength(200);
    for (const o of orphans) {
      expect(o).toMatchObject({ status: 'failed', last_error_class: 'event_expired', next_attempt_at: null });
      expect(o.last_error).toMatch(/retention/);
    }
    const shown = (await deliveries(ep.id)).find((x) => x.id !== d.id)!;
    expect(shown).toMatchObject({
      status: 'failed',
      last_error_class: 'event_expired',
      next_attempt_at: null,
    });
    const otherList = (await api(app, other.token).get(`/webhook-endpoints/${otherEp.id}/deliveries`)).body
      .data as Array<Record<string, unknown>>;
    expect(otherList[0]).toMatchObject({ status: 'succeeded', attempts: 2 });
  });

  it('retries a receiver that fails twice: three attempts, one event id, then success', async () => {
    let calls = 0;
    handlers.set('/flaky', (_req, res) => {
      calls += 1;
      res.writeHead(calls <= 2 ? 503 : 204).end();
    });
    const ep = await createEndpoint('/flaky');
    await emit(t.workspaceId, 'contact.created', { contact: { id: 1 } });
    const [d] = await waitFor(async () => {
      const list = await deliveries(ep.id);
      return list[0]?.status === 'succeeded' && list;
    }, 'flaky delivery to succeed');
    expect(d.attempts).toBe(3);
    expect(d.last_status_code).toBe(204);
    const hits = at('/flaky');
    expect(hits).toHaveLength(3);
    expect(new Set(hits.map((h) => h.headers['x-service-event-id'])).size).toBe(1);
    expect(new Set(hits.map((h) => h.body)).size).toBe(1);
    expect((await endpoint(ep.id)).consecutive_failures).toBe(0);
  });

  it('fails after five attempts, disables the endpoint, holds new deliveries, and resumes on enable', async () => {
    let healthy = false;
    handlers.set('/down', (_req, res) => res.writeHead(healthy ? 200 : 500).end('nope'));
    const ep = await createEndpoint('/down');
    await emit(t.workspaceId, 'contact.created', { contact: { id: 2 } });
    const [failed] = await waitFor(async () => {
      const list = await deliveries(ep.id);
      return list[0]?.status === 'failed' && list;
    }, 'delivery to fail');
    expect(failed).toMatchObject({
      attempts: 5,
      last_status_code: 500,
      last_error: 'HTTP 500',
      next_attempt_at: null,
    });
    expect(failed.last_response_excerpt).toBe('nope');
    expect(at('/down')).toHaveLength(5);
    const disabled = await endpoint(ep.id);
    expect(disabled.status).toBe('disabled');
    expect(disabled.consecutive_failures).toBe(5);
    expect(disabled.disabled_reason).toMatch(/5 consecutive failed attempts/);

    // While disabled, a new event's delivery waits: not attempted, not failed.
    await emit(t.workspaceId, 'contact.created', { contact: { id: 3 } });
    const waiting = await waitFor(async () => {
      const list = await deliveries(ep.id);
      return list.length === 2 && list[0];
    }, 'the second delivery to be created');
    await new Promise((r) => setTimeout(r, 300));
    expect((await deliveries(ep.id))[0]).toMatchObject({ id: waiting.id, status: 'pending', attempts: 0 });
    expect(at('/down')).toHaveLength(5);

    healthy = true;
    const enabled = await api(app, t.token).post(`/webhook-endpoints/${ep.id}/enable`);
    expect(enabled.status).toBe(200);
    expect(enabled.body.data).toMatchObject({
      status: 'enabled',
      consecutive_failures: 0,
      disabled_reason: null,
    });
    await waitFor(async () => {
      const list = await deliveries(ep.id);
      return list.find((d) => d.id === waiting.id)?.status === 'succeeded';
    }, 'the waiting delivery after enable');
    expect(at('/down')).toHaveLength(6);
    expect(JSON.parse(at('/down')[5].body).data).toEqual({ contact: { id: 3 } });
  });

  it('counts consecutive failures across deliveries of one endpoint', async () => {
    let healthy = false;
    handlers.set('/shared', (_req, res) => res.writeHead(healthy ? 200 : 502).end());
    const ep = await createEndpoint('/shared');
    await app.get(DataSource).transaction((m) =>
      recordEvents(
        m,
        [1, 2, 3].map((n) => ({ workspaceId: t.workspaceId, type: 'contact.created' as const, data: { n } })),
      ),
    );
    await waitFor(async () => (await endpoint(ep.id)).status === 'disabled', 'endpoint to be disabled');
    const list = await deliveries(ep.id);
    expect(list).toHaveLength(3);
    const total = list.reduce((sum, d) => sum + (d.attempts as number), 0);
    expect(total).toBeGreaterThanOrEqual(5);
    // Disabled before any single delivery used its five attempts: they wait, none failed.
    expect(list.filter((d) => d.status === 'pending').length).toBeGreaterThan(0);
    expect(list.every((d) => (d.attempts as number) < 5 || d.status === 'failed')).toBe(true);

    healthy = true;
    expect((await api(app, t.token).post(`/webhook-endpoints/${ep.id}/enable`)).status).toBe(200);
    await waitFor(async () => {
      const after = await deliveries(ep.id);
      return after.filter((d) => d.status !== 'failed').every((d) => d.status === 'succeeded');
    }, 'waiting deliveries to succeed');
    expect((await endpoint(ep.id)).consecutive_failures).toBe(0);
  });

  it.each([
    ['a 302 redirect', '/redirect', 'redirect', 'blocked redirect'],
    ['a timeout', '/slow', 'timeout', 'timeout'],
    ['an oversized response', '/big', 'oversized_response', 'oversized response'],
  ])('counts %s as a failed attempt', async (_label, path, errorClass, error) => {
    handlers.set('/redirect', (_req, res) => res.writeHead(302, { location: `${base}/landing` }).end());
    handlers.set('/slow', (_req, res) => {
      setTimeout(() => res.writeHead(200).end('late'), 1500);
    });
    handlers.set('/big', (_req, res) => res.writeHead(200).end('x'.repeat(70 * 1024)));
    const ep = await createEndpoint(path);
    await emit(t.workspaceId, 'contact.created', { contact: { id: 4 } });
    const [d] = await waitFor(
      async () => {
        const list = await deliveries(ep.id);
        return list[0]?.status === 'failed' && list;
      },
      `${path} delivery to fail`,
      30000,
    );
    expect(d.attempts).toBe(5);
    expect(d.last_error_class).toBe(errorClass);
    expect(String(d.last_error)).toContain(error);
    expect(at('/landing')).toHaveLength(0);
    expect((await endpoint(ep.id)).status).toBe('disabled');
  });

  it('POST /webhook-endpoints/{id}/test: one signed webhook.test now, outside the family filter, never retried or counted', async () => {
    const ep = await createEndpoint('/ping', ['enrollment']);
    const ok = await api(app, t.token).post(`/webhook-endpoints/${ep.id}/test`);
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({
      event: 'webhook.test',
      status: 'succeeded',
      attempts: 1,
      last_status_code: 200,
      last_error: null,
      next_attempt_at: null,
    });
    expect(at('/ping')).toHaveLength(1);
    const got = at('/ping')[0];
    const envelope = JSON.parse(got.body) as Record<string, unknown>;
    expect(envelope).toEqual({
      id: ok.body.data.event_id,
      version: 'v1',
      event: 'webhook.test',
      occurred_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      workspace_id: t.workspaceId,
      data: { endpoint_id: ep.id },
    });
    expect(got.headers['x-service-event']).toBe('webhook.test');
    expect(await octokitVerify(ep.secret, got.body, got.headers['x-service-signature'] as string)).toBe(true);
    expect(
      new Webhook(ep.secret).verify(got.body, {
        'webhook-id': got.headers['webhook-id'] as string,
        'webhook-timestamp': got.headers['webhook-timestamp'] as string,
        'webhook-signature': got.headers['webhook-signature'] as string,
      }),
    ).toEqual(envelope);
    expect((await deliveries(ep.id)).map((d) => d.id)).toEqual([ok.body.data.id]);

    // A receiver answering 500: `failed`, as often as one likes, and the endpoint stays enabled.
    handlers.set('/ping-500', (_req, res) => res.writeHead(500).end('internal error'));
    const bad = await createEndpoint('/ping-500');
    for (let i = 0; i < 6; i++) {
      const res = await api(app, t.token).post(`/webhook-endpoints/${bad.id}/test`);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        event: 'webhook.test',
        status: 'failed',
        attempts: 1,
        last_status_code: 500,
        last_error: 'HTTP 500',
        last_error_class: 'http_status',
        last_response_excerpt: 'internal error',
        next_attempt_at: null,
      });
    }
    expect(await endpoint(bad.id)).toMatchObject({ status: 'enabled', consecutive_failures: 0 });
    // The worker never retries a test delivery (a zero retry schedule would have by now).
    await new Promise((r) => setTimeout(r, 300));
    expect(at('/ping-500')).toHaveLength(6);
    expect((await deliveries(bad.id)).every((d) => d.status === 'failed')).toBe(true);

    // Idempotency-Key: a replay answers the stored delivery without a second request.
    const keyed = () =>
      api(app, t.token).post(`/webhook-endpoints/${ep.id}/test`).set('Idempotency-Key', `ping-${ep.id}`);
    const first = await keyed();
    const replay = await keyed();
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(at('/ping')).toHaveLength(2);

    const other = await createTenant(app);
    expect((await api(app, other.token).post(`/webhook-endpoints/${ep.id}/test`)).status).toBe(404);
    const readOnly = await workspaceKey(app, t.workspaceId, ['threads:read']);
    expect((await api(app, readOnly).post(`/webhook-endpoints/${ep.id}/test`)).status).toBe(403);
  });
});
