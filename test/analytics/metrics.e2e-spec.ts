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
import type { Queue } from 'bull';
import request from 'supertest';
import type { QueryRunner } from 'typeorm';
import { resetConfig } from '../../src/config/app-config.js';
import { SCRAPE_MAX_AGE_MS } from '../../src/modules/metrics/metrics.service.js';
import { api, createTenant, type TestTenant, useApp, app, db, q, FAST_SENDING } from '../helpers/app.js';
import { startSmtpSink, type SmtpSink } from '../helpers/mail-servers.js';
import { seedCampaign, seedContact, seedEnrollment } from '../helpers/seed.js';
import { waitFor } from '../helpers/wait.js';

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
  useApp({
    env: {
      METRICS_TOKEN: TOKEN,
      ...FAST_SENDING,
      WEBHOOK_ALLOWED_TEST_HOSTS: '127.0.0.1',
      WEBHOOK_RETRY_SCHEDULE: '0,0,0,0,0',
      WEBHOOK_POLL_MS: '50',
    },
  });
  let sink: SmtpSink;
  let receiver: Server;
  let receiverUrl: string;
  let hooks = 0;
  let t: TestTenant;
  const saved = { ...process.env };

  /** A scrape as it comes: within a second of the last render, that render's text. */
  const scrapeNow = () =>
    request(app.getHttpServer()).get('/metrics').set('Authorization', `Bearer ${TOKEN}`);
  let lastScrape = 0;
  /** A fresh scrape: a render is reused for SCRAPE_MAX_AGE_MS, so this waits that long after the last. */
  const scrape = async (): Promise<Samples> => {
    const wait = lastScrape + SCRAPE_MAX_AGE_MS + 20 - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    lastScrape = Date.now();
    const res = await scrapeNow();
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
    t = await createTenant(app);
  });

  afterAll(async () => {
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
        error: {
          type: 'authentication_failed',
          message:
            "A valid metrics token is required: send the server's METRICS_TOKEN as Authorization: Bearer <token> (or start the server with METRICS_PUBLIC=true)",
        },
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

  it('is closed by default: 401 unless METRICS_TOKEN is set and presented, or METRICS_PUBLIC=true explicitly', async () => {
    const server = app.getHttpServer();
    const withEnv = async (vars: Record<string, string | undefined>, run: () => Promise<void>) => {
      const before = { METRICS_TOKEN: process.env.METRICS_TOKEN, METRICS_PUBLIC: process.env.METRICS_PUBLIC };
      for (const [k, v] of Object.entries(vars)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      resetConfig();
      try {
        await run();
      } finally {
        for (const [k, v] of Object.entries(before)) {
          if (v === undefined) delete process.env[k];
          else process.env[k] = v;
        }
        resetConfig();
      }
    };
    // No token and no explicit opt-in: closed, whatever is presented.
    for (const open of [undefined, '', 'false', '1', 'yes', 'TRUE ']) {
      await withEnv({ METRICS_TOKEN: undefined, METRICS_PUBLIC: open }, async () => {
        for (const auth of [undefined, 'Bearer ', `Bearer ${TOKEN}`, `Bearer ${t.token}`]) {
          const req = request(server).get('/metrics');
          const res = await (auth ? req.set('Authorization', auth) : req);
          expect({ open, auth, status: res.status }).toEqual({ open, auth, status: 401 });
          expect(res.text).not.toContain('outreach_');
        }
      });
    }
    // METRICS_PUBLIC=true opens it explicitly.
    await withEnv({ METRICS_TOKEN: undefined, METRICS_PUBLIC: 'true' }, async () => {
      const res = await request(server).get('/metrics');
      expect(res.status).toBe(200);
      expect(res.text).toContain('outreach_http_requests_total');
    });
    // A token, when set, is required even with METRICS_PUBLIC=true.
    await withEnv({ METRICS_TOKEN: TOKEN, METRICS_PUBLIC: 'true' }, async () => {
      expect((await request(server).get('/metrics')).status).toBe(401);
      expect((await request(server).get('/metrics').set('Authorization', `Bearer ${TOKEN}`)).status).toBe(
        200,
      );
    });
  });

  it('bounds a scrape: 200 concurrent scrapes render at most once a second (one read of PostgreSQL and Redis each); a render is reused within its second', async () => {
    const reads = (s: Samples): number => value(s, 'outreach_metrics_gauge_reads_total');
    const before = await scrape();
    const started = Date.now();
    const burst = await Promise.all(Array.from({ length: 200 }, () => scrapeNow()));
    expect(burst.map((r) => r.status)).toEqual(Array.from({ length: 200 }, () => 200));
    const during = parse((await scrapeNow()).text);
    // `during` may have started a render of its own: the next `scrape()` waits out its second.
    lastScrape = Date.now();
    // At most one render per started second of the burst (plus the one `before` may have left for
    // the first second): 200 scrapes never cost 200 renders. Measured against the burst's own length,
    // so a busy machine makes it slower, not red.
    const seconds = Math.ceil((Date.now() - started) / 1000);
    expect(reads(during) - reads(before)).toBeLessThanOrEqual(seconds);
    expect(new Set(burst.map((r) => r.text)).size).toBeLessThanOrEqual(seconds + 1);
    // A second later, the next scrape renders again: counters and gauges move.
    expect(reads(await scrape()) - reads(during)).toBe(1);
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
    await new Promise((r) => setTimeout(r, SCRAPE_MAX_AGE_MS + 20));
    const res = await scrapeNow();
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
      // Gauges are read at most once a second: the scrape after that shows the lag.
      const late = await waitFor(async () => {
        const s = await scrape();
        return value(s, 'outreach_due_enrollments_lag_seconds') >= 120 ? s : undefined;
      }, 'the lag to show');
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
        value(before, 'outreach_sends_total', { outcome: 'sent' }) &&
        value(s, 'outreach_due_enrollments_lag_seconds') < 120
        ? s
        : undefined;
    }, 'sends_total{outcome="sent"} to move and the lag to fall');
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
      const waiting = await waitFor(async () => {
        const s = await scrape();
        return value(s, 'outreach_outbox_oldest_event_age_seconds') >= 90 ? s : undefined;
      }, 'the waiting event to show');
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
        2 && value(s, 'outreach_queue_jobs', { queue: 'imports', state: 'waiting' }) === 0
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
