#!/usr/bin/env node
/**
 * Scale benchmark: does the cost of a request or a worker pass stay flat as data grows?
 * Two databases are built side by side with generate_series (minutes, not hours):
 *
 *   small: one workspace with   100,000 contacts among   500,000, 100,000 enrollments,  1,000,000 events
 *   large: one workspace with 1,000,000 contacts among 5,000,000, 1,000,000 enrollments, 10,000,000 events
 *
 * (10 % of the enrollments active and due over the day; threads, messages, suppressions and webhook
 * deliveries in proportion; 0.01 % of the workspace in each selective filter value). On each it
 * measures, with nothing else running:
 *
 * - p50/p99 of one page (per_page=25) of every list and every filter, through the built service
 *   (BENCH_SCALE_REQUESTS sequential requests each, after a warm-up);
 * - p50/p99 of the worker statements: the due-enrollment claim, the outbox dispatch batch, the
 *   webhook retry scan and one retention batch (deliveries and events). Each statement is the one
 *   the built service runs (captured from a real call of its repository), then timed again inside a
 *   transaction that is rolled back, so every repetition sees the same data.
 *
 * It prints both columns with their ratio, and checks the targets: every filtered page within 3x of
 * the unfiltered page at the large size, every figure at the large size within 2x of the small.
 *
 *   npm run bench -- scale                 # both sizes (about 15 minutes on 2 cores)
 *   BENCH_SCALE_FACTOR=0.1 node bench/scale.mjs   # a quick look at a tenth of the sizes
 *
 * BENCH_SCALE_KEEP=1 keeps the databases (named bench_scale_small / bench_scale_large) and reuses
 * them on the next run instead of seeding again. Uses DATABASE_URL as the admin connection.
 */
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import pg from 'pg';
import * as lib from './lib.mjs';

const { freePort, withClient, stopProcess } = lib;
const log = (...a) => console.error('[bench:scale]', ...a);
const FACTOR = Number(process.env.BENCH_SCALE_FACTOR ?? 1);
const REQUESTS = Number(process.env.BENCH_SCALE_REQUESTS ?? 60);
const STATEMENT_RUNS = Number(process.env.BENCH_SCALE_STATEMENT_RUNS ?? 30);
const KEEP = process.env.BENCH_SCALE_KEEP === '1';
const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const SIZES = [
  { name: 'small', contacts: 100_000, total: 500_000, events: 1_000_000 },
  { name: 'large', contacts: 1_000_000, total: 5_000_000, events: 10_000_000 },
].map((s) => ({
  ...s,
  contacts: Math.round(s.contacts * FACTOR),
  total: Math.round(s.total * FACTOR),
  events: Math.round(s.events * FACTOR),
}));

const dbUrlOf = (name) => {
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return u.toString();
};

const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const round = (x, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

function envOf(dbUrl, prefix) {
  return {
    ...process.env,
    DATABASE_URL: dbUrl,
    REDIS_URL: redisUrl,
    REDIS_PREFIX: prefix,
    API_KEY_PEPPER: 'scale-bench-pepper-0123456789abcdef',
    ENCRYPTION_KEY: 'ab'.repeat(32),
    PUBLIC_URL: 'http://bench.local',
    LOG_LEVEL: 'warn',
    ACCESS_LOG: 'false',
    APP_ROLE: 'api',
    NODE_OPTIONS: '',
  };
}

/** Seeds one size; returns the ids the measurements need. */
async function seed(size, env) {
  const cli = (...args) => lib.cli(env, ...args);
  await cli('migrate');
  const org = await cli(
    'org:create',
    '--name',
    'Scale Agency',
    '--max-workspaces',
    '100',
    '--max-contacts',
    '100000000',
  );
  const ws = await cli('workspace:create', '--org', org.id, '--name', 'Measured');
  const scopes = await import('../dist/common/auth/scopes.js');
  const key = await cli(
    'key:create',
    '--tier',
    'workspace',
    '--workspace',
    ws.id,
    '--scopes',
    scopes.WORKSPACE_SCOPES.join(','),
    '--rate-limit',
    '1000000000',
  );
  const n = size.contacts;
  await withClient(env.DATABASE_URL, async (c) => {
    const q = async (what, sql, params = []) => {
      const t0 = Date.now();
      const r = await c.query(sql, params);
      log(`${size.name}: ${what} (${Math.round((Date.now() - t0) / 1000)} s)`);
      return r.rows;
    };
    await c.query(`SET synchronous_commit = off`);
    await c.query(`SET maintenance_work_mem = '512MB'`);
    // Other tenants: the rest of the contacts in 4 workspaces of the same organization.
    const others = await q(
      'other workspaces',
      `INSERT INTO workspaces (organization_id, name, config) SELECT $1, 'Other ' || g, '{}'::jsonb
       FROM generate_series(1, 4) g RETURNING id`,
      [org.id],
    );
    await q(
      `${size.total - n} contacts of other workspaces`,
      `INSERT INTO contacts (workspace_id, email, stage, created_at, updated_at)
       SELECT ($1::uuid[])[1 + g % 4], 'o' || g || '@other' || (g % 97) || '.test', 'new',
              now() - interval '2 hours' - g * interval '1 second', now() - interval '2 hours' - g * interval '1 second'
       FROM generate_series(1, $2::int) g`,
      [others.map((o) => o.id), size.total - n],
    );
    await q(
      `${n} contacts of the measured workspace`,
      `INSERT INTO contacts (workspace_id, email, first_name, last_name, company, timezone, custom_fields, stage,
                             suppression_reason, suppressed_at, created_at, updated_at)
       SELECT $1, 'c' || g || '@example' || (g % 500) || '.test', 'First' || g, 'Last' || g, 'Company ' || (g % 1000),
              'Europe/Paris', jsonb_build_object('plan', 'p' || (g % 7)),
              CASE WHEN g % 10000 = 7 THEN 'replied' WHEN g % 3 = 0 THEN 'contacted' ELSE 'new' END,
              CASE WHEN g % 10000 = 11 THEN 'bounced' END, CASE WHEN g % 10000 = 11 THEN now() END,
              ts, CASE WHEN g % 10000 = 13 THEN now() - interval '1 minute' ELSE ts END
       FROM generate_series(1, $2::int) g,
            LATERAL (SELECT now() - interval '2 hours' - g * interval '1 second' AS ts) t`,
      [ws.id, n],
    );
    const [seq] = await q(
      'sequence, campaigns, inboxes, endpoints',
      `INSERT INTO sequences (workspace_id, name, status, steps)
       VALUES ($1, 'S', 'published', '[{"position":1,"subject":"Hi","body":"Hello","delay_minutes":0},
                                       {"position":2,"subject":"","body":"Again","delay_minutes":1440}]')
       RETURNING id`,
      [ws.id],
    );
    const inboxes = await q(
      'inboxes',
      `INSERT INTO inboxes (workspace_id, email, domain, smtp_sealed, inbound_secret_hash, daily_limit)
       SELECT $1, 'i' || g || '@sender.test', 'sender.test', 'x', 'x', 1000 FROM generate_series(1, 2) g RETURNING id`,
      [ws.id],
    );
    const campaigns = await q(
      'campaigns',
      `INSERT INTO campaigns (workspace_id, name, sequence_id, status, inbox_ids, activated_at)
       SELECT $1, 'C' || g, $2, 'active', $3::uuid[], now() FROM generate_series(1, 2) g RETURNING id`,
      [ws.id, seq.id, inboxes.map((i) => i.id)],
    );
    const [big, small] = campaigns.map((r) => r.id);
    // Enrollments: one per contact; 10 % active and due over the day (half of them already due), the
    // rest completed; 0.01 % stopped; 0.01 % in the small campaign.
    await q(
      `${n} enrollments`,
      `INSERT INTO enrollments (workspace_id, campaign_id, contact_id, status, current_step, next_step_at, created_at)
       SELECT c.workspace_id, CASE WHEN c.id % 10000 = 3 THEN $2::bigint ELSE $3::bigint END, c.id,
              CASE WHEN c.id % 10000 = 5 THEN 'stopped' WHEN c.id % 10 = 1 THEN 'active' ELSE 'completed' END,
              1, CASE WHEN c.id % 10 = 1 AND c.id % 10000 <> 5
                      THEN now() - interval '12 hours' + (c.id % 86400) * interval '1 second' END,
              c.created_at
       FROM contacts c WHERE c.workspace_id = $1`,
      [ws.id, small, big],
    );
    await q(
      `${n} threads`,
      `INSERT INTO threads (workspace_id, inbox_id, contact_id, enrollment_id, campaign_id, subject, message_count,
                            last_message_at, created_at)
       SELECT e.workspace_id, CASE WHEN e.id % 10000 = 9 THEN $2::uuid ELSE $3::uuid END, e.contact_id, e.id,
              e.campaign_id, 'Hi', 1, e.created_at, e.created_at
       FROM enrollments e WHERE e.workspace_id = $1`,
      [ws.id, inboxes[1].id, inboxes[0].id],
    );
    await q(
      `${n} messages`,
      `INSERT INTO messages (workspace_id, thread_id, enrollment_id, direction, kind, from_address, to_address,
                             subject, body, message_id, status, sent_at, step_position, created_at)
       SELECT t.workspace_id, t.id, t.enrollment_id, 'outbound', 'email', 'i1@sender.test', 'c@example.test', 'Hi',
              'Hello', '<' || t.id || '@sender.test>', 'sent', t.created_at, 1, t.created_at
       FROM threads t WHERE t.workspace_id = $1`,
      [ws.id],
    );
    await q(
      `${n / 5} suppressions`,
      `INSERT INTO suppressions (workspace_id, email, reason, created_at)
       SELECT $1, 's' || g || '@example.test', CASE WHEN g % 2000 = 1 THEN 'unsubscribed' ELSE 'manual' END,
              now() - g * interval '1 second'
       FROM generate_series(1, $2::int) g`,
      [ws.id, Math.round(n / 5)],
    );
    const endpoints = await q(
      'endpoints',
      `INSERT INTO webhook_endpoints (workspace_id, url, events, secret_sealed)
       SELECT $1, 'https://hooks.example.test/' || g, '{*}', 'x' FROM generate_series(1, 2) g RETURNING id`,
      [ws.id],
    );
    // Events: the outbox over 60 days, all dispatched (half past the 30-day retention), plus 5,000 new ones.
    await q(
      `${size.events} events`,
      `INSERT INTO events (id, workspace_id, type, data, occurred_at, created_at, dispatched_at)
       SELECT gen_random_uuid(), CASE WHEN g % 5 = 0 THEN ($3::uuid[])[1 + g % 4] ELSE $1::uuid END, 'contact.created',
              jsonb_build_object('contact_id', g), ts, ts, ts
       FROM generate_series(1, $2::int) g,
            LATERAL (SELECT now() - (g::float8 / $2::int) * interval '60 days' AS ts) t`,
      [ws.id, size.events, others.map((o) => o.id)],
    );
    await q(
      '5,000 undispatched events',
      `INSERT INTO events (id, workspace_id, type, data, occurred_at, created_at)
       SELECT gen_random_uuid(), $1, 'contact.created', jsonb_build_object('contact_id', g), now(), now()
       FROM generate_series(1, 5000) g`,
      [ws.id],
    );
    // Deliveries: one per contact-sized slice of events; 95 % finished over 60 days, 5 % pending with
    // retries spread over the next day (1 in 50 of them due now). 0.01 % to the second endpoint.
    await q(
      `${n} webhook deliveries`,
      `INSERT INTO webhook_deliveries (workspace_id, endpoint_id, event_id, event, status, attempts, next_attempt_at,
                                       created_at)
       SELECT $1, CASE WHEN g % 10000 = 1 THEN $3::bigint ELSE $2::bigint END, gen_random_uuid(), 'contact.created',
              CASE WHEN g % 20 = 0 THEN 'pending' ELSE 'succeeded' END, 1,
              CASE WHEN g % 20 = 0 THEN now() + CASE WHEN g % 1000 = 0 THEN -interval '1 minute'
                                                   ELSE (g % 86400) * interval '1 second' END END,
              now() - (g::float8 / $4::int) * interval '60 days'
       FROM generate_series(1, $4::int) g`,
      [ws.id, endpoints[0].id, endpoints[1].id, n],
    );
    await q(
      'daily metrics',
      `INSERT INTO daily_metrics (workspace_id, date, campaign_id, sent)
       SELECT $1, current_date - g, c.id, 100 FROM generate_series(0, 364) g, campaigns c WHERE c.workspace_id = $1`,
      [ws.id],
    );
    await q('VACUUM ANALYZE', 'VACUUM ANALYZE');
  });
  return { token: key.token };
}

/** What the measurements need of a seeded database (also when it is reused). */
async function describe(dbUrl) {
  return withClient(dbUrl, async (c) => {
    const one = async (sql, params = []) => (await c.query(sql, params)).rows[0];
    const ws = await one(`SELECT id FROM workspaces WHERE name = 'Measured'`);
    const w = ws.id;
    const campaigns = (await c.query(`SELECT id FROM campaigns WHERE workspace_id = $1 ORDER BY id`, [w]))
      .rows;
    const inboxes = (await c.query(`SELECT id FROM inboxes WHERE workspace_id = $1 ORDER BY email`, [w]))
      .rows;
    const endpointRows = (
      await c.query(`SELECT id FROM webhook_endpoints WHERE workspace_id = $1 ORDER BY id`, [w])
    ).rows;
    return {
      workspaceId: w,
      big: campaigns[0].id,
      small: campaigns[1].id,
      bigInbox: inboxes[0].id,
      smallInbox: inboxes[1].id,
      bigEndpoint: endpointRows[0].id,
      smallEndpoint: endpointRows[1].id,
      contact: (await one(`SELECT id FROM contacts WHERE workspace_id = $1 ORDER BY id DESC LIMIT 1`, [w]))
        .id,
      thread: (await one(`SELECT id FROM threads WHERE workspace_id = $1 ORDER BY id DESC LIMIT 1`, [w])).id,
    };
  });
}

function listUrls(ids) {
  const recent = encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString());
  return [
    ['contacts', '/contacts', null],
    ['contacts', '/contacts?status=replied', '/contacts'],
    ['contacts', '/contacts?status=contacted', '/contacts'],
    ['contacts', '/contacts?sendable=false', '/contacts'],
    ['contacts', '/contacts?sendable=true', '/contacts'],
    ['contacts', '/contacts?email=c77@example77.test', '/contacts'],
    ['contacts', `/contacts?created_after=${recent}`, '/contacts'],
    ['contacts', '/contacts?created_before=2000-01-01', '/contacts'],
    ['contacts', `/contacts?updated_after=${recent}`, '/contacts'],
    ['enrollments', '/enrollments', null],
    ['enrollments', `/enrollments?campaign_id=${ids.small}`, '/enrollments'],
    ['enrollments', `/enrollments?campaign_id=${ids.big}`, '/enrollments'],
    ['enrollments', `/enrollments?contact_id=${ids.contact}`, '/enrollments'],
    ['enrollments', '/enrollments?status=stopped', '/enrollments'],
    ['enrollments', '/enrollments?status=active', '/enrollments'],
    ['threads', '/threads', null],
    ['threads', `/threads?contact_id=${ids.contact}`, '/threads'],
    ['threads', `/threads?campaign_id=${ids.small}`, '/threads'],
    ['threads', `/threads?inbox_id=${ids.smallInbox}`, '/threads'],
    ['threads', `/threads?inbox_id=${ids.bigInbox}`, '/threads'],
    ['messages', `/threads/${ids.thread}/messages`, null],
    ['suppressions', '/suppressions', null],
    ['suppressions', '/suppressions?reason=unsubscribed', '/suppressions'],
    ['suppressions', '/suppressions?email=s5@example.test', '/suppressions'],
    ['deliveries', `/webhook-endpoints/${ids.bigEndpoint}/deliveries`, null],
    [
      'deliveries',
      `/webhook-endpoints/${ids.smallEndpoint}/deliveries`,
      `/webhook-endpoints/${ids.bigEndpoint}/deliveries`,
    ],
    ['analytics', '/analytics/daily?from=2000-01-01&to=2100-01-01', null],
    [
      'analytics',
      `/analytics/daily?from=2000-01-01&to=2100-01-01&campaign_id=${ids.small}`,
      '/analytics/daily?from=2000-01-01&to=2100-01-01',
    ],
    ['campaigns', '/campaigns', null],
    ['webhook endpoints', '/webhook-endpoints', null],
  ];
}

async function timeRequests(base, token, path) {
  const get = async () => {
    const t0 = performance.now();
    const res = await fetch(`${base}/api/v1${path}`, { headers: { authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
    return performance.now() - t0;
  };
  for (let i = 0; i < 5; i++) await get();
  const ms = [];
  for (let i = 0; i < REQUESTS; i++) ms.push(await get());
  return { p50: round(percentile(ms, 50)), p99: round(percentile(ms, 99)) };
}

/**
 * The worker statements, as the built service runs them: each repository method is called once for
 * real with pg's query captured, then the captured statements are timed in rolled-back transactions.
 */
async function timeStatements(env) {
  Object.assign(process.env, env);
  const { createDataSource } = await import('../dist/database/data-source.js');
  const { EnrollmentStepsRepository } =
    await import('../dist/modules/enrollments/enrollment-steps.repository.js');
  const { CLAIM_BATCH } = await import('../dist/modules/sending/engine/engine.types.js');
  const { WebhookDeliveryRepository } =
    await import('../dist/modules/webhooks/webhook-delivery.repository.js');
  const { EventsRepository } = await import('../dist/modules/events/events.repository.js');
  const { EventRetentionService, RETENTION_BATCH } =
    await import('../dist/modules/webhooks/event-retention.service.js');
  const ds = createDataSource(env.DATABASE_URL);
  await ds.initialize();
  const original = pg.Client.prototype.query;
  const capture = async (fn) => {
    const seen = [];
    pg.Client.prototype.query = function (config, values, ...rest) {
      const text = typeof config === 'string' ? config : config?.text;
      if (text && !/^(BEGIN|COMMIT|ROLLBACK|START|SELECT 1)/i.test(text.trim()))
        seen.push({ text, values: typeof config === 'string' ? values : (config.values ?? values) });
      return original.call(this, config, values, ...rest);
    };
    try {
      await fn();
    } finally {
      pg.Client.prototype.query = original;
    }
    return seen;
  };
  const deliveries = new WebhookDeliveryRepository(ds);
  const operations = {
    'due-enrollment claim (400)': () =>
      new EnrollmentStepsRepository(ds).claimDueAcrossWorkspaces(CLAIM_BATCH, 600),
    'outbox dispatch batch (500 events)': () => deliveries.dispatchAcrossWorkspaces(500, 0),
    'webhook retry scan (100)': () => deliveries.claimDueAcrossWorkspaces(100, 60),
    'retention batch (5,000 deliveries + 5,000 events)': () =>
      new EventRetentionService(ds, deliveries, new EventsRepository()).sweepOnce(RETENTION_BATCH),
  };
  const client = new pg.Client({ connectionString: env.DATABASE_URL });
  await client.connect();
  const results = {};
  try {
    for (const [name, fn] of Object.entries(operations)) {
      const statements = await capture(fn);
      const ms = [];
      for (let i = 0; i < STATEMENT_RUNS; i++) {
        await client.query('BEGIN');
        const t0 = performance.now();
        for (const s of statements) await client.query(s.text, s.values);
        ms.push(performance.now() - t0);
        await client.query('ROLLBACK');
      }
      results[name] = {
        p50: round(percentile(ms, 50)),
        p99: round(percentile(ms, 99)),
        statements: statements.length,
      };
    }
  } finally {
    await client.end();
    await ds.destroy();
  }
  return results;
}

async function measure(size) {
  const name = `bench_scale_${size.name}`;
  const dbUrl = dbUrlOf(name);
  const env = envOf(dbUrl, `bench:${name}:${randomBytes(3).toString('hex')}`);
  const exists = await withClient(
    adminUrl,
    async (c) => (await c.query(`SELECT 1 FROM pg_database WHERE datname = $1`, [name])).rowCount === 1,
  );
  let token;
  if (exists && KEEP) {
    log(`${size.name}: reusing ${name}`);
    token = (await withClient(dbUrl, (c) => c.query(`SELECT value FROM bench_scale_token`))).rows[0].value;
  } else {
    if (exists) await withClient(adminUrl, (c) => c.query(`DROP DATABASE ${name} WITH (FORCE)`));
    await withClient(adminUrl, (c) => c.query(`CREATE DATABASE ${name}`));
    const t0 = Date.now();
    const seeded = await seed(size, env);
    token = seeded.token;
    await withClient(dbUrl, async (c) => {
      await c.query(`CREATE TABLE bench_scale_token (value text)`);
      await c.query(`INSERT INTO bench_scale_token VALUES ($1)`, [token]);
    });
    log(`${size.name}: seeded in ${Math.round((Date.now() - t0) / 1000)} s`);
  }
  // Fresh statistics, as autovacuum keeps them: the seeded times move on (retries fall due).
  await withClient(dbUrl, (c) => c.query('ANALYZE'));
  const ids = await describe(dbUrl);
  const port = await freePort();
  const service = (
    await lib.startProcess({
      env: { ...env, PORT: String(port) },
      script: 'dist/main.js',
      ready: async () => (await fetch(`http://127.0.0.1:${port}/health/ready`)).status === 200,
      what: 'service',
    })
  ).proc;
  const lists = [];
  try {
    for (const [list, path, base] of listUrls(ids)) {
      lists.push({ list, path, base, ...(await timeRequests(`http://127.0.0.1:${port}`, token, path)) });
    }
  } finally {
    await stopProcess(service);
  }
  // The statements mutate nothing that stays (rolled back) except their one captured call.
  const statements = await timeStatements(env);
  if (!KEEP) await withClient(adminUrl, (c) => c.query(`DROP DATABASE ${name} WITH (FORCE)`));
  await lib.deleteRedisPrefix(redisUrl, env.REDIS_PREFIX);
  return { ids, lists, statements };
}

async function main() {
  log(
    `sizes: ${SIZES.map((s) => `${s.name} ${s.contacts} contacts / ${s.total} / ${s.events} events`).join('; ')}`,
  );
  const small = await measure(SIZES[0]);
  const large = await measure(SIZES[1]);
  const rows = [];
  const failures = [];
  // Lists are compared by position: the same list and filter in both sizes (ids differ).
  large.lists.forEach((l, i) => {
    const s = small.lists[i];
    const growth = l.p50 / s.p50;
    const base = l.base ? large.lists.find((x) => x.path === l.base) : null;
    const vsBase = base ? l.p50 / base.p50 : null;
    const label = l.path
      .replace(/=[0-9a-f-]{36}/, '=<uuid>')
      .replace(/=\d{4}-\d\d-\d\dT[^&]+/, '=<1h ago>')
      .replace(/=\d+(?=&|$)/g, '=<id>');
    rows.push({ figure: `GET ${label}`, small: s, large: l, growth, vsBase });
    if (growth > 2) failures.push(`GET ${label}: ${round(growth)}x the small size`);
    if (vsBase !== null && vsBase > 3) failures.push(`GET ${label}: ${round(vsBase)}x the unfiltered page`);
  });
  for (const [name, l] of Object.entries(large.statements)) {
    const s = small.statements[name];
    const growth = l.p50 / s.p50;
    rows.push({ figure: name, small: s, large: l, growth, vsBase: null });
    if (growth > 2) failures.push(`${name}: ${round(growth)}x the small size`);
  }
  const w = Math.max(...rows.map((r) => r.figure.length));
  console.log(
    `${'figure (ms)'.padEnd(w)}  ${'small p50/p99'.padStart(15)}  ${'large p50/p99'.padStart(15)}  large/small  vs unfiltered`,
  );
  for (const r of rows) {
    console.log(
      `${r.figure.padEnd(w)}  ${`${r.small.p50}/${r.small.p99}`.padStart(15)}  ${`${r.large.p50}/${r.large.p99}`.padStart(15)}  ${round(r.growth).toString().padStart(11)}  ${r.vsBase === null ? '' : round(r.vsBase)}`,
    );
  }
  console.log(failures.length ? `targets missed:\n  ${failures.join('\n  ')}` : 'targets met');
  console.log(
    JSON.stringify({
      bench: 'scale',
      factor: FACTOR,
      cpus: cpus().length,
      loadavg: loadavg().map((x) => round(x)),
      sizes: SIZES,
      rows: rows.map((r) => ({
        figure: r.figure,
        small: { p50: r.small.p50, p99: r.small.p99 },
        large: { p50: r.large.p50, p99: r.large.p99 },
        growth: round(r.growth),
        vsBase: r.vsBase === null ? null : round(r.vsBase),
      })),
      failures,
    }),
  );
  if (failures.length) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
