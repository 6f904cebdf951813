#!/usr/bin/env node
/**
 * Out-of-office holds benchmark: do held enrollments cost the send engine anything while they wait?
 *
 * Three scratch databases, each with BENCH_HOLDS_ENROLLMENTS (100,000) active enrollments of one
 * campaign (a two-step sequence): 1 in 100 due now (the last ten minutes), the rest due over the next
 * 14 days. They differ only in the enrollments numbered 5 modulo 10 (a tenth, 10,000):
 *
 *   A  baseline: not held.
 *   B  held as the service holds them: each through the enrollments module's own hold statement (EnrollmentTransitionsRepository.hold)
 *      (`held_until` 1 to 14 days ahead, `held_reason` out_of_office, `next_step_at` moved to the
 *      hold), after their step had fallen due during the absence (`next_step_at` in the past).
 *   C  for comparison only, the design not taken: the same rows held by `held_until` alone, their
 *      step left due, and the due query filtering `held_until` on every tick.
 *
 * Measured on each, the three interleaved (A B C A B C ...) so the shared machine's load falls on
 * all alike:
 *
 * 1. EXPLAIN (ANALYZE, BUFFERS) of the engine's claim statement, captured from a real call of
 *    EnrollmentStepsRepository.claimDueAcrossWorkspaces (the due query inside its UPDATE), run in a
 *    rolled-back transaction: the enrollments scan, the index entries it read, rows filtered out,
 *    buffers, execution time (median of BENCH_HOLDS_EXPLAINS runs).
 * 2. BENCH_HOLDS_TICKS (200) claims of CLAIM_BATCH (400) enrollments, each in a rolled-back
 *    transaction (every tick sees the same data): p50 / p99.
 * 3. A and B only: one worker per database (`node dist/main.js`, APP_ROLE=worker, a local SMTP server
 *    each) sends the due enrollments (unmeasured warm-up), then BENCH_HOLDS_ROUNDS (3) rounds in which
 *    1,000 more become due, A then B: seconds from due to the last message accepted, sends per
 *    second, the worker's CPU per send.
 * 4. Idle: nothing due (A and B: all sent; C: the unheld due ones completed), EXPLAIN and
 *    BENCH_HOLDS_TICKS claims again.
 *
 *   npm run bench -- holds
 *
 * Uses DATABASE_URL as the admin connection (scratch databases created and dropped) and REDIS_URL
 * (default redis://127.0.0.1:6379, private key prefixes). Progress on stderr; the table on stdout,
 * then one JSON line.
 */
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import * as lib from './lib.mjs';

const { root, sleep, withClient } = lib;
const log = (...a) => console.error('[bench:holds]', ...a);
const ENROLLMENTS = Number(process.env.BENCH_HOLDS_ENROLLMENTS ?? 100_000);
const TICKS = Number(process.env.BENCH_HOLDS_TICKS ?? 200);
const EXPLAINS = Number(process.env.BENCH_HOLDS_EXPLAINS ?? 5);
// Each round makes due the enrollments numbered k modulo 100 (k = 1..4: never a held one).
const ROUNDS = Math.min(4, Number(process.env.BENCH_HOLDS_ROUNDS ?? 3));
const LEASE_SECONDS = 600;

const { EnrollmentStepsRepository } = await import(
  join(root, 'dist/modules/enrollments/enrollment-steps.repository.js')
);
const { EnrollmentTransitionsRepository } = await import(
  join(root, 'dist/modules/enrollments/enrollments.repository.js')
);
const { CLAIM_BATCH } = await import(join(root, 'dist/modules/sending/engine/engine.types.js'));

const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const round = (x, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

/** What a repository needs of TypeORM's manager: `query(sql, params)` answering rows, on `client`. */
const managerOn = (client, seen) => ({
  query: async (sql, params) => {
    seen?.push({ text: sql, values: params });
    return (await client.query(sql, params)).rows;
  },
});

/** The claim statement exactly as the engine runs it (text and parameters), captured once. */
async function claimStatement(client) {
  const seen = [];
  await client.query('BEGIN');
  await new EnrollmentStepsRepository({ manager: managerOn(client, seen) }).claimDueAcrossWorkspaces(
    CLAIM_BATCH,
    LEASE_SECONDS,
  );
  await client.query('ROLLBACK');
  if (seen.length !== 1) throw new Error(`expected one claim statement, saw ${seen.length}`);
  return seen[0];
}

/** C: the due query as it would be if a hold only set `held_until`. */
const filteringHeldUntil = (s) => {
  const text = s.text.replace(
    'e.next_step_at <= now()',
    'e.next_step_at <= now() AND (e.held_until IS NULL OR e.held_until <= now())',
  );
  if (text === s.text) throw new Error('the due predicate was not found in the claim statement');
  return { ...s, text };
};

const DATABASES = [
  { name: 'A', label: 'no held rows (baseline)', engine: true },
  { name: 'B', label: '10 % held (next_step_at moved)', engine: true },
  { name: 'C', label: 'held_until only, filtered (not the design)', engine: false },
];

async function seed(db) {
  await withClient(db.adminUrl, (c) => c.query(`CREATE DATABASE ${db.dbName}`));
  await lib.cli(db.env, 'migrate');
  db.sink = await lib.smtpSink();
  await withClient(db.dbUrl, async (c) => {
    await c.query('SET synchronous_commit = off');
    const steps = [
      { position: 1, delay_minutes: 0, subject: 'Hello {{ first_name }}', body: 'Hi {{ first_name }}.' },
      {
        position: 2,
        delay_minutes: 3 * 1440,
        subject: 'Following up',
        body: 'Any thoughts, {{ first_name }}?',
      },
    ];
    const t = await lib.seedSendingTenant(c, { smtpPort: db.sink.port, steps });
    // Checked and valid: the address gate sends, and the verification loop has nothing due.
    await c.query(
      `INSERT INTO contacts (workspace_id, email, first_name, verification_status, verification_checked_at, verification_due_at)
       SELECT $1, 'c' || g || '@example' || (g % 50) || '.test', 'Name' || g, 'valid', now(), NULL
       FROM generate_series(1, $2) g`,
      [t.ws, ENROLLMENTS],
    );
    // Enrollment ids are 1..N in insert order (a fresh table). Due: 1 in 100, in the last ten
    // minutes; the rest spread over the next two weeks. The tenth numbered 5 mod 10 has had one step.
    await c.query(
      `INSERT INTO enrollments (workspace_id, campaign_id, contact_id, status, current_step, next_step_at)
       SELECT $1, $2, ct.id, 'active', CASE WHEN ct.g % 10 = 5 THEN 1 ELSE 0 END,
              CASE WHEN ct.g % 100 = 0 THEN now() - (ct.g % 600) * interval '1 second'
                   ELSE now() + interval '1 hour' + ((ct.g * 7919) % 20160) * interval '1 minute' END
       FROM (SELECT id, row_number() OVER (ORDER BY id) AS g FROM contacts WHERE workspace_id = $1) ct
       ORDER BY ct.g`,
      [t.ws, t.campaign],
    );
    const heldIds = (
      await c.query(`SELECT id, workspace_id FROM enrollments WHERE id % 10 = 5 ORDER BY id`)
    ).rows.map((r) => ({ id: Number(r.id), ws: r.workspace_id }));
    if (db.name !== 'A') {
      // The step fell due during the absence (within the last day) before the away notice was read.
      await c.query(
        `UPDATE enrollments SET next_step_at = now() - (id % 1440) * interval '1 minute' WHERE id % 10 = 5`,
      );
    }
    if (db.name === 'B') {
      const holds = new EnrollmentTransitionsRepository();
      const m = managerOn(c);
      const day = 86_400_000;
      const now = Date.now();
      for (const h of heldIds) {
        const held = await holds.hold(
          h.ws,
          h.id,
          new Date(now + (1 + (h.id % 14)) * day),
          'out_of_office',
          m,
        );
        if (!held) throw new Error(`enrollment ${h.id} was not held`);
      }
    }
    if (db.name === 'C') {
      await c.query(
        `UPDATE enrollments SET held_until = now() + (1 + id % 14) * interval '1 day', held_reason = 'out_of_office'
         WHERE id % 10 = 5`,
      );
    }
    await c.query('VACUUM ANALYZE');
    db.counts = (
      await c.query(
        `SELECT count(*)::int AS enrollments, count(held_until)::int AS held,
                count(*) FILTER (WHERE next_step_at <= now())::int AS next_step_at_past,
                count(*) FILTER (WHERE next_step_at <= now() AND (held_until IS NULL OR held_until <= now()))::int AS due
         FROM enrollments WHERE status = 'active'`,
      )
    ).rows[0];
  });
  log(`${db.name}: ${JSON.stringify(db.counts)}`);
}

/** Every node of an EXPLAIN (FORMAT JSON) plan. */
const nodesOf = (plan) => [plan, ...(plan.Plans ?? []).flatMap(nodesOf)];

async function explain(client, s) {
  const runs = [];
  for (let i = 0; i < EXPLAINS; i++) {
    await client.query('BEGIN');
    const [{ 'QUERY PLAN': json }] = (
      await client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${s.text}`, s.values)
    ).rows;
    await client.query('ROLLBACK');
    runs.push(json[0]);
  }
  await client.query('BEGIN');
  const text = (await client.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${s.text}`, s.values)).rows.map(
    (r) => r['QUERY PLAN'],
  );
  await client.query('ROLLBACK');
  const last = runs.at(-1);
  const nodes = nodesOf(last.Plan);
  const scan = nodes.find((n) => n['Relation Name'] === 'enrollments' && /Scan/.test(n['Node Type']));
  const index = nodes.find((n) => n['Index Name']);
  // The due query is the claim's CTE; the rest of the statement is the UPDATE of what it found.
  const cte = nodes.find((n) => n['Subplan Name'] === 'CTE due');
  const buffers = (n) => (n ? (n['Shared Hit Blocks'] ?? 0) + (n['Shared Read Blocks'] ?? 0) : null);
  const removed = nodes.reduce((n, x) => n + (x['Rows Removed by Filter'] ?? 0), 0);
  return {
    enrollments_scan: scan?.['Node Type'],
    index: index?.['Index Name'] ?? null,
    // A plain index scan filters the heap rows it fetched: what it read is what it returned plus those.
    due_index_entries_read: index
      ? index['Actual Rows'] * index['Actual Loops'] + (index['Rows Removed by Filter'] ?? 0)
      : null,
    rows_removed_by_filter: removed,
    rows_claimed: last.Plan['Actual Rows'],
    due_query_buffers: buffers(cte),
    due_query_ms_median: round(
      percentile(
        runs.map((r) => nodesOf(r.Plan).find((n) => n['Subplan Name'] === 'CTE due')?.['Actual Total Time']),
        50,
      ),
      3,
    ),
    statement_buffers: buffers(last.Plan),
    execution_ms_median: round(
      percentile(
        runs.map((r) => r['Execution Time']),
        50,
      ),
      3,
    ),
    plan: text,
  };
}

/** TICKS claims on each database in turn (A B C A B C ...), each rolled back; p50/p99 per database. */
async function ticks(clients, statements) {
  const ms = clients.map(() => []);
  for (let i = 0; i < TICKS; i++) {
    for (let d = 0; d < clients.length; d++) {
      const c = clients[d];
      await c.query('BEGIN');
      const t0 = performance.now();
      const r = await c.query(statements[d].text, statements[d].values);
      ms[d].push(performance.now() - t0);
      await c.query('ROLLBACK');
      if (i === 0) statements[d].claimed = r.rowCount;
    }
  }
  return ms.map((xs, d) => ({
    claimed: statements[d].claimed,
    p50_ms: round(percentile(xs, 50), 3),
    p99_ms: round(percentile(xs, 99), 3),
    mean_ms: round(xs.reduce((a, b) => a + b, 0) / xs.length, 3),
  }));
}

async function measurePlansAndTicks(dbs, phase) {
  const clients = await Promise.all(dbs.map((db) => lib.connect(db.dbUrl)));
  try {
    const statements = [];
    for (const [d, db] of dbs.entries()) {
      const s = await claimStatement(clients[d]);
      statements.push(db.name === 'C' ? filteringHeldUntil(s) : s);
    }
    const plans = [];
    for (let d = 0; d < dbs.length; d++) plans.push(await explain(clients[d], statements[d]));
    log(`${phase}: ${TICKS} claims on each database, interleaved ...`);
    const timed = await ticks(clients, statements);
    for (const [d, db] of dbs.entries()) {
      db[phase] = { explain: plans[d], ticks: timed[d] };
      log(`${phase} ${db.name}: ${JSON.stringify({ ...plans[d], plan: undefined, ticks: timed[d] })}`);
      for (const line of plans[d].plan) log(`   ${db.name} | ${line}`);
    }
  } finally {
    await Promise.all(clients.map((c) => c.end()));
  }
}

async function startWorker(db) {
  const started = await lib.startProcess({
    env: { ...db.env, RUN_MIGRATIONS: 'false' },
    script: join(root, 'dist/main.js'),
    what: `worker ${db.name}`,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  db.worker = started.proc;
  db.workerExited = new Promise((_, fail) =>
    db.worker.once('exit', (code, signal) => fail(new Error(`worker ${db.name} exited (${code ?? signal})`))),
  );
  db.workerExited.catch(() => undefined);
}

/** Waits until `n` more messages are accepted by db's sink and recorded sent. */
async function sendsDone(db, target, sentTarget) {
  await Promise.race([
    db.sink.reaches(target),
    db.workerExited,
    sleep(300_000).then(() => {
      throw new Error(`${db.name}: not sent within 5 minutes`);
    }),
  ]);
  await withClient(db.dbUrl, async (c) => {
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const r = await c.query(`SELECT count(*)::int AS n FROM messages WHERE status = 'sent'`);
      if (r.rows[0].n >= sentTarget) return;
      await sleep(20);
    }
    throw new Error(`${db.name}: sends not finalised within 60 s`);
  });
}

async function engineRounds(dbs) {
  for (const db of dbs) await startWorker(db);
  const due = ENROLLMENTS / 100;
  log(`engine: warm-up, each worker sends its ${due} due enrollments (not measured)`);
  await Promise.all(dbs.map((db) => sendsDone(db, due, due)));
  for (const db of dbs) db.engine = [];
  for (let k = 1; k <= ROUNDS; k++) {
    for (const db of dbs) {
      const before = db.sink.accepted();
      const cpuBefore = lib.cpuMs(db.worker.pid);
      const made = await withClient(db.dbUrl, (c) =>
        c.query(
          `UPDATE enrollments SET next_step_at = now() WHERE id % 100 = $1 AND status = 'active' AND current_step = 0`,
          [k],
        ),
      );
      const t0 = performance.now();
      if (made.rowCount !== due) throw new Error(`${db.name}: ${made.rowCount} made due, expected ${due}`);
      await sendsDone(db, before + due, due * (k + 1));
      const seconds = (db.sink.lastAcceptedAt() - t0) / 1000;
      const r = {
        round: k,
        sends: due,
        seconds: round(seconds, 3),
        per_second: Math.round(due / seconds),
        worker_cpu_ms_per_send: round((lib.cpuMs(db.worker.pid) - cpuBefore) / due, 3),
        loadavg_1m: round(loadavg()[0]),
      };
      db.engine.push(r);
      log(`engine ${db.name}: ${JSON.stringify(r)}`);
    }
  }
  for (const db of dbs) {
    await lib.stopProcess(db.worker);
    db.worker = undefined;
  }
}

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
// One sealing key for all: dist's modules (sealing the inboxes' settings) read it from this process
// (appConfig(), read once).
const secrets = {
  API_KEY_PEPPER: randomBytes(24).toString('base64url'),
  ENCRYPTION_KEY: randomBytes(32).toString('hex'),
};
Object.assign(process.env, secrets);
const dbs = DATABASES.map((d) => {
  const s = lib.scratch(`holds_${d.name.toLowerCase()}`);
  return {
    ...d,
    ...s,
    env: {
      ...process.env,
      ...secrets,
      DATABASE_URL: s.dbUrl,
      REDIS_URL: redisUrl,
      REDIS_PREFIX: s.redisPrefix,
      APP_ROLE: 'worker',
      LOG_LEVEL: 'warn',
      SEND_TICK_MS: '50',
      SEND_MIN_GAP_SECONDS: '0',
      SEND_LEASE_SECONDS: String(LEASE_SECONDS),
      IMAP_POLL_SECONDS: '3600',
      PUBLIC_URL: 'http://127.0.0.1:3000',
      NODE_OPTIONS: '',
    },
  };
});

// The rest of the configuration dist's modules need here (they read it once).
Object.assign(process.env, { DATABASE_URL: dbs[0].dbUrl, PUBLIC_URL: dbs[0].env.PUBLIC_URL });

const machine = { cpus: cpus().length, loadavg_1m_before: round(loadavg()[0]), node: process.version };
let failed = false;
try {
  for (const db of dbs) {
    log(`${db.name} (${db.label}): seeding ${ENROLLMENTS} enrollments in ${db.dbName}`);
    await seed(db);
  }
  await measurePlansAndTicks(dbs, 'due');
  await engineRounds(dbs.filter((d) => d.engine));
  // Idle: C's unheld due enrollments are completed (its rows were never sent: its query is not the engine's).
  await withClient(dbs[2].dbUrl, (c) =>
    c.query(
      `UPDATE enrollments SET status = 'completed', completed_at = now(), next_step_at = NULL
       WHERE status = 'active' AND next_step_at <= now() AND held_until IS NULL`,
    ),
  );
  for (const db of dbs) await withClient(db.dbUrl, (c) => c.query('VACUUM ANALYZE enrollments'));
  await measurePlansAndTicks(dbs, 'idle');
} catch (err) {
  failed = true;
  log('failed:', err instanceof Error ? err.stack : String(err));
} finally {
  for (const db of dbs) {
    if (db.worker) db.worker.kill('SIGKILL');
    db.sink?.close();
    await withClient(db.adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${db.dbName} WITH (FORCE)`)).catch(
      (e) => log('could not drop database:', e.message),
    );
    await lib
      .deleteRedisPrefix(redisUrl, db.redisPrefix)
      .catch((e) => log('could not clean Redis:', e.message));
  }
}

const cell = (db, f) => {
  try {
    const v = f(db);
    return v === undefined || v === null ? '—' : String(v);
  } catch {
    return '—';
  }
};
const median = (xs) => (xs.length ? percentile(xs, 50) : undefined);
const rows = [
  ['held rows', (d) => d.counts.held],
  ['next_step_at in the past', (d) => d.counts.next_step_at_past],
  ['due claim: enrollments scan', (d) => `${d.due.explain.enrollments_scan} (${d.due.explain.index})`],
  ['due claim: due-index entries read', (d) => d.due.explain.due_index_entries_read],
  ['due claim: rows removed by filter', (d) => d.due.explain.rows_removed_by_filter],
  ['due claim: rows claimed', (d) => d.due.explain.rows_claimed],
  [
    'due query: buffers / ms (median)',
    (d) => `${d.due.explain.due_query_buffers} / ${d.due.explain.due_query_ms_median}`,
  ],
  [
    'whole claim: buffers / ms (median)',
    (d) => `${d.due.explain.statement_buffers} / ${d.due.explain.execution_ms_median}`,
  ],
  [`due claim x${TICKS}: p50 / p99 ms`, (d) => `${d.due.ticks.p50_ms} / ${d.due.ticks.p99_ms}`],
  ['idle claim: due-index entries read', (d) => d.idle.explain.due_index_entries_read],
  ['idle claim: rows removed by filter', (d) => d.idle.explain.rows_removed_by_filter],
  [
    'idle claim: buffers / ms (median)',
    (d) => `${d.idle.explain.statement_buffers} / ${d.idle.explain.execution_ms_median}`,
  ],
  [`idle claim x${TICKS}: p50 / p99 ms`, (d) => `${d.idle.ticks.p50_ms} / ${d.idle.ticks.p99_ms}`],
  [
    `engine, ${ENROLLMENTS / 100} due x${ROUNDS}: sends/s`,
    (d) => (d.engine ? d.engine.map((r) => r.per_second).join(', ') : undefined),
  ],
  [
    'engine: worker CPU ms/send (median)',
    (d) => (d.engine ? median(d.engine.map((r) => r.worker_cpu_ms_per_send)) : undefined),
  ],
];
console.log(
  `Out-of-office holds: ${ENROLLMENTS.toLocaleString('en')} active enrollments each (${machine.cpus} CPUs, load ${machine.loadavg_1m_before} at start)`,
);
const width = Math.max(...rows.map(([l]) => l.length));
console.log(`  ${''.padEnd(width)}  ${dbs.map((d) => `${d.name}: ${d.label}`.padEnd(44)).join('')}`);
for (const [label, f] of rows)
  console.log(`  ${label.padEnd(width)}  ${dbs.map((d) => cell(d, f).padEnd(44)).join('')}`);
// The plans' text went to stderr; the JSON keeps their figures.
const withoutText = (phase) => phase && { ...phase, explain: { ...phase.explain, plan: undefined } };
const strip = ({ adminUrl, dbUrl, env, sink, worker, workerExited, due, idle, ...rest }) => ({
  ...rest,
  due: withoutText(due),
  idle: withoutText(idle),
});
process.stdout.write(`${JSON.stringify({ machine, enrollments: ENROLLMENTS, results: dbs.map(strip) })}\n`);
process.exit(failed ? 1 : 0);
