/**
 * GET /metrics on the real application (API and workers in one process, real PostgreSQL, Redis,
 * SMTP and webhook receiver): the token rule, route templates as labels, and every series moving
 * while real work happens — a send, webhook deliveries, an import, the due-enrollment lag, the outbox
 * backlog and the import queue's depth.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getQueueToken } from '@nestjs/bull';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Queue } from 'bull';
import request from 'supertest';
import { DataSource, type QueryRunner } from 'typeorm';
import { resetConfig } from '../src/config/app-config.js';
import { api, bootApp, createTenant, type TestTenant } from './helpers/app.js';
import {
  seedCampaign,
  seedContact,
  seedEnrollment,
  startSmtpSink,
  type SmtpSink,
} from './helpers/mail-servers.js';
import { waitFor } from './helpers/wait.js';

const TOKEN = 'metrics-test-token-0123456789';

/** Parsed exposition text: `name{labels}` → value. */
type Samples = Map<string, number>;

function parse(text: string): Samples {
  const out: Samples = new Map();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const i = line.lastIndexOf(' ');
    out.set(line.slice(0, i), Number(line.slice(i + 1)));
  }
  return out;
}

/** Sum of the samples of `name` whose labels include every pair of `labels`. */
function value(samples: Samples, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  let found = false;
  for (const [key, v] of samples) {
    const brace = key.indexOf('{');
    const metric = brace < 0 ? key : key.slice(0, brace);
    if (metric !== name) continue;
    if (Object.entries(labels).every(([k, want]) => key.includes(`${k}="${want}"`))) {
      sum += v;
      found = true;
    }
  }
  if (!found) throw new Error(`no sample ${name} ${JSON.stringify(labels)}`);
  return sum;
}

describe('GET /metrics', () => {
  let app: NestExpressApplication;
  let db: DataSource;
  let sink: SmtpSink;
  let receiver: Server;
  let receiverUrl: string;
  let hooks = 0;
  let t: TestTenant;
  const q = (sql: string, params?: unknown[]): Promise<unknown> => db.query(sql, params);
  const saved = { ...process.env };

  const scrape = async (): Promise<Samples> => {
    const res = await request(app.getHttpServer()).get('/metrics').set('Authorization', `Bearer ${TOKEN}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return parse(res.text);
  };

  /** Holds a KEY SHARE lock on one row: the workers' `FOR UPDATE SKIP LOCKED` claims pass it over. */
  const holdRow = async (table: 'enrollments' | 'events', id: number | string): Promise<QueryRunner> => {
    const runner = db.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    await runner.query(`SELECT id FROM ${table} WHERE id = $1 FOR KEY SHARE`, [id]);
    return runner;
  };
  const release = async (runner: QueryRunner): Promise<void> => {
    await runner.rollbackTransaction();
    await runner.release();
  };

  beforeAll(async () => {
    Object.assign(process.env, {
      METRICS_TOKEN: TOKEN,
      SEND_TICK_MS: '50',
      SEND_MIN_GAP_SECONDS: '0',
      IMAP_POLL_SECONDS: '3600',
      WEBHOOK_ALLOWED_TEST_HOSTS: '127.0.0.1',
      WEBHOOK_RETRY_SCHEDULE: '0,0,0,0,0',
      WEBHOOK_POLL_MS: '50',
    });
    resetConfig();
    sink = await startSmtpSink();
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        hooks += 1;
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    app = await bootApp();
    db = app.get(DataSource);
    t = await createTenant(app);
  });

  afterAll(async () => {
    await app.close();
    await sink.close();
    receiver.closeAllConnections();
    await new Promise((r) => receiver.close(r));
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
    resetConfig();
  });

  it('answers 401 in the error envelope without the token or with a wrong one; lives outside /api/v1', async () => {
    const server = app.getHttpServer();
    for (const auth of [undefined, 'Bearer wrong-token', `Basic ${TOKEN}`, `Bearer ${TOKEN}x`]) {
      const req = request(server).get('/metrics');
      const res = await (auth ? req.set('Authorization', auth) : req);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        error: { type: 'authentication_failed', message: 'A valid metrics token is required' },
      });
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(res.text).not.toContain('outreach_');
    }
    // A workspace API key is not the metrics token.
    expect((await request(server).get('/metrics').set('Authorization', `Bearer ${t.token}`)).status).toBe(
      401,
    );
    expect(
      (await request(server).get('/api/v1/metrics').set('Authorization', `Bearer ${TOKEN}`)).status,
    ).toBe(404);
    const ok = await scrape();
    // Node process metrics and the service's own series are there.
    expect(value(ok, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(value(ok, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    for (const outcome of ['sent', 'bounced', 'failed', 'deferred'])
      expect(value(ok, 'outreach_sends_total', { outcome })).toBeGreaterThanOrEqual(0);
    expect(value(ok, 'outreach_imap_polls_total', { outcome: 'failed' })).toBeGreaterThanOrEqual(0);
  });

  it('labels HTTP requests with the route template, never the raw path, and counts them with their latency', async () => {
    const before = await scrape();
    const route = { method: 'GET', route: '/api/v1/contacts/:contact', status: '404' };
    const count = (s: Samples): number => {
      try {
        return value(s, 'outreach_http_requests_total', route);
      } catch {
        return 0;
      }
    };
    for (const id of [987654321, 987654322, 987654323]) {
      expect((await api(app, t.token).get(`/contacts/${id}`)).status).toBe(404);
    }
    expect((await request(app.getHttpServer()).get('/no/such/path-4242')).status).toBe(404);
    const res = await request(app.getHttpServer()).get('/metrics').set('Authorization', `Bearer ${TOKEN}`);
    const after = parse(res.text);
    expect(count(after) - count(before)).toBe(3);
    expect(value(after, 'outreach_http_request_duration_seconds_count', route)).toBe(count(after));
    expect(value(after, 'outreach_http_request_duration_seconds_bucket', { ...route, le: '+Inf' })).toBe(
      count(after),
    );
    expect(
      value(after, 'outreach_http_requests_total', { route: 'unmatched', status: '404' }),
    ).toBeGreaterThan(0);
    // No raw path, id or token ever becomes a label; no workspace id either (not opted in).
    expect(res.text).not.toMatch(/98765432\d|path-4242/);
    expect(res.text).not.toContain(t.workspaceId);
    expect(res.text).not.toContain('workspace_id=');
  });

  it('moves the due-enrollment lag and the send counter with a real send', async () => {
    const c = await seedCampaign(q, { workspaceId: t.workspaceId, smtpPort: sink.port });
    const contactId = await seedContact(q, t.workspaceId, 'metrics-send@example.com');
    // Not due yet; then held (the send engine's claim skips it) and made due two minutes ago.
    const enrollmentId = await seedEnrollment(
      q,
      t.workspaceId,
      c.campaignId,
      contactId,
      new Date(Date.now() + 86_400_000),
    );
    const before = await scrape();
    const held = await holdRow('enrollments', enrollmentId);
    try {
      await q(`UPDATE enrollments SET next_step_at = now() - interval '120 seconds' WHERE id = $1`, [
        enrollmentId,
      ]);
      const late = await scrape();
      expect(value(late, 'outreach_due_enrollments_lag_seconds')).toBeGreaterThanOrEqual(120);
      expect(value(late, 'outreach_due_enrollments_lag_seconds')).toBeLessThan(600);
    } finally {
      await release(held);
    }
    await waitFor(
      async () => sink.received.some((m) => m.to.includes('metrics-send@example.com')),
      'the send',
    );
    const after = await waitFor(async () => {
      const s = await scrape();
      return value(s, 'outreach_sends_total', { outcome: 'sent' }) >
        value(before, 'outreach_sends_total', { outcome: 'sent' })
        ? s
        : undefined;
    }, 'sends_total{outcome="sent"} to move');
    expect(value(after, 'outreach_due_enrollments_lag_seconds')).toBeLessThan(120);
  });

  it('counts a manual reply (POST /threads/{id}/messages) in sends_total like a sequence step', async () => {
    const sentOf = (samples: Samples): number => value(samples, 'outreach_sends_total', { outcome: 'sent' });
    const c = await seedCampaign(q, {
      workspaceId: t.workspaceId,
      smtpPort: sink.port,
      domain: 'manual.test',
      steps: [{ subject: 'Hello', body: 'One step' }],
    });
    const contactId = await seedContact(q, t.workspaceId, 'metrics-reply@example.com');
    await seedEnrollment(q, t.workspaceId, c.campaignId, contactId);
    // Every enrollment of the tenant done (this one's step is the thread to reply in), and the
    // counter settled (a step is counted just after its row is marked sent).
    const step = await waitFor(async () => {
      const open = (await q(`SELECT 1 FROM enrollments WHERE workspace_id = $1 AND status = 'active'`, [
        t.workspaceId,
      ])) as unknown[];
      const rows = (await q(`SELECT thread_id FROM messages WHERE workspace_id = $1 AND to_address = $2`, [
        t.workspaceId,
        'metrics-reply@example.com',
      ])) as Array<{ thread_id: number }>;
      return open.length === 0 && rows[0];
    }, 'the step sent');
    let before = await scrape();
    await waitFor(async () => {
      await new Promise((r) => setTimeout(r, 300));
      const again = await scrape();
      const settled = sentOf(again) === sentOf(before);
      before = again;
      return settled;
    }, 'the counter settled');
    const res = await api(app, t.token)
      .post(`/threads/${step.thread_id}/messages`)
      .set('Idempotency-Key', `metrics-reply-${randomUUID()}`)
      .send({ body: 'A manual reply' });
    expect(res.status).toBe(201);
    expect(sentOf(await scrape())).toBe(sentOf(before) + 1);
  });

  it('moves the outbox backlog while an event waits for dispatch', async () => {
    const other = await createTenant(app); // no webhook endpoint: its events only need dispatching
    const id = randomUUID();
    await q(
      `INSERT INTO events (id, workspace_id, type, data, occurred_at, created_at, dispatched_at)
       VALUES ($1, $2, 'contact.created', '{}', now(), now() - interval '90 seconds', now())`,
      [id, other.workspaceId],
    );
    const before = await scrape();
    const held = await holdRow('events', id);
    try {
      await q(`UPDATE events SET dispatched_at = NULL WHERE id = $1`, [id]);
      const waiting = await scrape();
      expect(value(waiting, 'outreach_outbox_backlog_events')).toBeGreaterThan(
        value(before, 'outreach_outbox_backlog_events'),
      );
      expect(value(waiting, 'outreach_outbox_oldest_event_age_seconds')).toBeGreaterThanOrEqual(90);
    } finally {
      await release(held);
    }
    await waitFor(
      async () => value(await scrape(), 'outreach_outbox_oldest_event_age_seconds') < 90,
      'the event to be dispatched',
    );
  });

  it('moves the queue depth, import rows and webhook deliveries with a real import whose contacts are delivered', async () => {
    const endpoint = await api(app, t.token)
      .post('/webhook-endpoints')
      .send({ url: receiverUrl, events: ['contact'] });
    expect(endpoint.status).toBe(201);
    const queue = app.get<Queue>(getQueueToken('imports'), { strict: false });
    const before = await scrape();
    const hooksBefore = hooks;
    // This process's import worker pauses, so the job is seen waiting in the queue.
    await queue.pause(true);
    let importId: number;
    try {
      const csv = [
        'email,first_name',
        'm1@example.com,A',
        'm2@example.com,B',
        'not-an-email,C',
        'm1@example.com,D',
      ].join('\n');
      const res = await api(app, t.token).post('/contacts/import').send({ csv });
      expect(res.status).toBe(202);
      importId = res.body.data.id as number;
      const waiting = await waitFor(async () => {
        const s = await scrape();
        return value(s, 'outreach_queue_jobs', { queue: 'imports', state: 'waiting' }) >= 1 ? s : undefined;
      }, 'the import job waiting in the queue');
      expect(value(waiting, 'outreach_queue_jobs', { queue: 'imports', state: 'waiting' })).toBeGreaterThan(
        value(before, 'outreach_queue_jobs', { queue: 'imports', state: 'waiting' }),
      );
    } finally {
      await queue.resume(true);
    }
    await waitFor(async () => {
      const res = await api(app, t.token).get(`/imports/${importId}`);
      return res.body.data?.status === 'completed';
    }, 'the import to complete');
    await waitFor(async () => hooks - hooksBefore >= 2, 'two contact.created deliveries');
    const after = await waitFor(async () => {
      const s = await scrape();
      return value(s, 'outreach_webhook_deliveries_total', { outcome: 'succeeded' }) -
        value(before, 'outreach_webhook_deliveries_total', { outcome: 'succeeded' }) >=
        2
        ? s
        : undefined;
    }, 'webhook deliveries to be counted');
    const moved = (name: string, labels: Record<string, string>): number =>
      value(after, name, labels) - value(before, name, labels);
    expect(moved('outreach_import_rows_total', { result: 'created' })).toBe(2);
    expect(moved('outreach_import_rows_total', { result: 'failed' })).toBe(1);
    expect(moved('outreach_import_rows_total', { result: 'skipped' })).toBe(1);
    expect(value(after, 'outreach_queue_jobs', { queue: 'imports', state: 'waiting' })).toBe(0);
  });
});
