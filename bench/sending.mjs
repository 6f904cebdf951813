#!/usr/bin/env node
/**
 * Sending benchmark (not a test).
 *
 * 1. BENCH_SENDS (5,000) due enrollments of a one-step campaign, SEND_MIN_GAP_SECONDS=0, sent by one
 *    worker process (`node dist/main.js`, APP_ROLE=worker, as deployed) to a local SMTP server
 *    (smtp-server): messages accepted per second, from the moment the enrollments become due to the
 *    last message accepted. Next to it, in the same run and to the same server, a raw nodemailer loop
 *    (same pooled transport settings): one message at a time, and 8 in flight like the engine. Both
 *    first send BENCH_WARMUP_SENDS (1,000) messages that are not measured.
 * 2. EXPLAIN (ANALYZE, BUFFERS) of the engine's due-enrollment query with BENCH_ENROLLMENTS
 *    (1,000,000) enrollments present, most not due.
 *
 *   npx nest build && node bench/sending.mjs
 *
 * Uses DATABASE_URL's server (a scratch database is created and dropped) and REDIS_URL (default
 * redis://127.0.0.1:6379, a private key prefix). Progress on stderr; one JSON object on stdout.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import * as lib from './lib.mjs';

const { root, sleep, freePort, withClient } = lib;
const SENDS = Number(process.env.BENCH_SENDS ?? 5000);
// Sent first by both the raw loop and the engine, unmeasured: both are measured warm, as a worker
// that has run for a while is (a cold worker spends much of its first seconds compiling its code).
const WARMUP = Number(process.env.BENCH_WARMUP_SENDS ?? 1000);
const ENROLLMENTS = Number(process.env.BENCH_ENROLLMENTS ?? 1_000_000);
const log = (...a) => console.error('[bench:sending]', ...a);
// The contacts are inserted already verified `valid` (example.com publishes a null MX, so the address
// check would skip every one of them): this measures sending, not the address check.
const VERIFIED_COLUMNS = 'verification_status, verification_checked_at, verification_due_at';
const VERIFIED_VALUES = "'valid', now(), NULL";

if (!existsSync(join(root, 'dist/main.js'))) {
  log('building dist/ ...');
  execFileSync(process.execPath, [join(root, 'scripts/ensure-built.mjs')], { cwd: root, stdio: 'inherit' });
}

const { adminUrl, dbName, dbUrl } = lib.scratch('sending');

const env = {
  ...process.env,
  DATABASE_URL: dbUrl,
  REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  REDIS_PREFIX: `bench:${dbName}`,
  API_KEY_PEPPER: randomBytes(24).toString('base64url'),
  ENCRYPTION_KEY: randomBytes(32).toString('hex'),
  APP_ROLE: 'worker',
  LOG_LEVEL: 'warn',
  SEND_TICK_MS: '50',
  SEND_MIN_GAP_SECONDS: '0',
  IMAP_POLL_SECONDS: '3600',
  PUBLIC_URL: 'http://127.0.0.1:3000',
};
// The dist modules below read their configuration from this process's environment.
Object.assign(process.env, env);

// --- the SMTP server --------------------------------------------------------------------------
let accepted = 0;
let lastAcceptedAt = 0;
let waiters = [];
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onData(stream, _session, callback) {
    stream.on('data', () => undefined);
    stream.on('end', () => {
      accepted += 1;
      lastAcceptedAt = performance.now();
      for (const w of waiters) w();
      callback();
    });
  },
});
const smtpPort = await freePort();
await new Promise((r) => smtp.listen(smtpPort, '127.0.0.1', r));
const acceptedReaches = (n) =>
  new Promise((resolve) => {
    const check = () => {
      if (accepted >= n) {
        waiters = waiters.filter((w) => w !== check);
        resolve();
      }
    };
    waiters.push(check);
    check();
  });

const result = { sends: SENDS, warmup_sends: WARMUP, enrollments_for_explain: ENROLLMENTS };
let worker;
await withClient(adminUrl, (c) => c.query(`CREATE DATABASE ${dbName}`));
try {
  log(`scratch database ${dbName}; migrating`);
  await lib.cli(env, 'migrate');
  const { sealSettings, hashInboundSecret } = await import(
    join(root, 'dist/modules/inboxes/inbox-credentials.js')
  );
  const { DUE_ENROLLMENTS_SQL } = await import(join(root, 'dist/modules/sending/send-engine.service.js'));

  // --- 1. raw nodemailer loops -----------------------------------------------------------------
  const mail = (i) => ({
    from: 'bench@bench.test',
    to: `raw${i}@example.com`,
    subject: `Raw ${i}`,
    text: 'Hello from the raw loop',
    headers: { 'List-Unsubscribe': '<http://127.0.0.1:3000/u/x>' },
  });
  const transportOptions = {
    host: '127.0.0.1',
    port: smtpPort,
    secure: false,
    pool: true,
    maxConnections: 4,
    maxMessages: 500,
  };
  {
    const t = nodemailer.createTransport(transportOptions);
    for (let i = 0; i < WARMUP; i++) await t.sendMail(mail(i));
    const start = performance.now();
    for (let i = 0; i < SENDS; i++) await t.sendMail(mail(i));
    const s = (performance.now() - start) / 1000;
    t.close();
    result.raw_sequential = { seconds: +s.toFixed(2), per_second: Math.round(SENDS / s) };
    log('raw nodemailer, one at a time:', result.raw_sequential);
  }
  {
    const t = nodemailer.createTransport(transportOptions);
    const start = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < SENDS) await t.sendMail(mail(next++));
      }),
    );
    const s = (performance.now() - start) / 1000;
    t.close();
    result.raw_8_in_flight = { seconds: +s.toFixed(2), per_second: Math.round(SENDS / s) };
    log('raw nodemailer, 8 in flight:', result.raw_8_in_flight);
  }

  // --- 1. the engine ----------------------------------------------------------------------------
  const ids = await withClient(dbUrl, async (c) => {
    const org = (await c.query(`INSERT INTO organizations (name) VALUES ('Bench') RETURNING id`)).rows[0].id;
    const ws = (
      await c.query(
        `INSERT INTO workspaces (organization_id, name, config) VALUES ($1, 'Bench', $2) RETURNING id`,
        [org, JSON.stringify({ domain_daily_send_limit: 100000, unsubscribe_footer_enabled: true })],
      )
    ).rows[0].id;
    // The id is chosen here: sealed settings are bound to their inbox (inboxes.smtp_sealed.<id>).
    const inboxId = randomUUID();
    const inbox = (
      await c.query(
        `INSERT INTO inboxes (id, workspace_id, email, display_name, domain, daily_limit, smtp_sealed, inbound_secret_hash)
         VALUES ($4, $1, 'sender@bench.test', 'Bench Sender', 'bench.test', 100000, $2, $3) RETURNING id`,
        [
          ws,
          sealSettings(
            { host: '127.0.0.1', port: smtpPort, secure: false, user: null, password: null },
            inboxId,
            'smtp',
          ),
          hashInboundSecret('x'),
          inboxId,
        ],
      )
    ).rows[0].id;
    const steps = [
      {
        position: 1,
        delay_minutes: 0,
        subject: 'Hello {{ first_name }}',
        body: 'Hi {{ first_name }}, a word about {{ company }}.',
      },
    ];
    const seq = (
      await c.query(
        `INSERT INTO sequences (workspace_id, name, status, steps, published_at) VALUES ($1, 'Bench', 'published', $2, now()) RETURNING id`,
        [ws, JSON.stringify(steps)],
      )
    ).rows[0].id;
    const campaign = (
      await c.query(
        `INSERT INTO campaigns (workspace_id, name, sequence_id, status, inbox_ids, schedule, activated_at)
         VALUES ($1, 'Bench', $2, 'active', $3, $4, now()) RETURNING id`,
        [
          ws,
          seq,
          [inbox],
          JSON.stringify({
            timezone: 'UTC',
            days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
            start_time: '00:00',
            end_time: '24:00',
          }),
        ],
      )
    ).rows[0].id;
    await c.query(
      `INSERT INTO contacts (workspace_id, email, first_name, company, ${VERIFIED_COLUMNS})
       SELECT $1, 'c' || g || '@example.com', 'Name' || g, 'Company ' || g, ${VERIFIED_VALUES} FROM generate_series(1, $2) g`,
      [ws, SENDS],
    );
    await c.query(
      `INSERT INTO contacts (workspace_id, email, first_name, company, ${VERIFIED_COLUMNS})
       SELECT $1, 'w' || g || '@example.com', 'Warm' || g, 'Warm-up ' || g, ${VERIFIED_VALUES} FROM generate_series(1, $2) g`,
      [ws, WARMUP],
    );
    return { ws, campaign };
  });

  let baseline = accepted;
  // BENCH_WORKER_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof", to profile the worker.
  const nodeArgs = (process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const started = await lib.startProcess({
    env: { ...env, RUN_MIGRATIONS: 'false' },
    script: join(root, 'dist/main.js'),
    what: 'worker',
    nodeArgs,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  worker = started.proc;
  // A worker that dies fails the run at once instead of leaving it waiting for sends.
  const workerExited = new Promise((_, fail) =>
    worker.once('exit', (code, signal) => fail(new Error(`worker exited (${code ?? signal})`))),
  );
  workerExited.catch(() => undefined);
  await sleep(3000); // the worker is up and ticking on an empty table
  const enrollDue = (emailPrefix) =>
    withClient(dbUrl, (c) =>
      c.query(
        `INSERT INTO enrollments (workspace_id, campaign_id, contact_id, status, current_step, next_step_at)
         SELECT $1, $2, id, 'active', 0, now() FROM contacts WHERE workspace_id = $1 AND email LIKE $3`,
        [ids.ws, ids.campaign, `${emailPrefix}%`],
      ),
    );
  if (WARMUP > 0) {
    log(`warm-up: enrolling ${WARMUP} other contacts, not measured`);
    await enrollDue('w');
    await Promise.race([acceptedReaches(baseline + WARMUP), workerExited]);
    baseline = accepted;
  }
  log(`enrolling ${SENDS} contacts, due now`);
  const workerCpuBefore = lib.cpuMs(worker.pid);
  await enrollDue('c');
  const start = performance.now();
  await Promise.race([
    acceptedReaches(baseline + SENDS),
    workerExited,
    new Promise((_, fail) =>
      setTimeout(() => fail(new Error('engine did not send everything within 10 minutes')), 600_000),
    ),
  ]);
  const engineSeconds = (lastAcceptedAt - start) / 1000;
  // The worker's own CPU per message while it sent (a busy core is 1,000 ms per second).
  const workerCpuMsPerSend = +((lib.cpuMs(worker.pid) - workerCpuBefore) / SENDS).toFixed(3);
  // Finalisation runs in groups just behind SMTP acceptance: wait until every send is recorded
  // `sent` and its enrollment completed, and report that moment too.
  const check = await withClient(dbUrl, async (c) => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const r = await c.query(
        `SELECT (SELECT count(*)::int FROM messages WHERE status = 'sent') AS sent,
                (SELECT count(*)::int FROM enrollments WHERE status = 'completed') AS completed`,
      );
      const row = r.rows[0];
      if ((row.sent >= SENDS + WARMUP && row.completed >= SENDS + WARMUP) || Date.now() > deadline) {
        return { ...row, finalised_after_seconds: +((performance.now() - start) / 1000).toFixed(2) };
      }
      await sleep(20);
    }
  });
  result.engine = {
    seconds: +engineSeconds.toFixed(2),
    per_second: Math.round(SENDS / engineSeconds),
    worker_cpu_ms_per_send: workerCpuMsPerSend,
    accepted_by_smtp: accepted - baseline,
    ...check,
  };
  result.engine_vs_raw_sequential = +(result.engine.per_second / result.raw_sequential.per_second).toFixed(2);
  result.engine_vs_raw_8_in_flight = +(result.engine.per_second / result.raw_8_in_flight.per_second).toFixed(
    2,
  );
  log('engine:', result.engine);
  await lib.stopProcess(worker);
  worker = undefined;

  // --- 2. EXPLAIN with a million enrollments ---------------------------------------------------
  log(`inserting ${ENROLLMENTS} enrollments for the plan`);
  result.explain = await withClient(dbUrl, async (c) => {
    await c.query(
      `INSERT INTO enrollments (workspace_id, campaign_id, contact_id, status, current_step, next_step_at, completed_at)
       SELECT $1, $2, 1000000 + g,
              CASE WHEN g % 10 < 6 THEN 'completed' WHEN g % 10 < 7 THEN 'stopped' ELSE 'active' END,
              1,
              CASE WHEN g % 10 >= 7 THEN now() + (g % 10000) * interval '1 minute' END,
              CASE WHEN g % 10 < 6 THEN now() END
       FROM generate_series(1, $3) g`,
      [ids.ws, ids.campaign, ENROLLMENTS],
    );
    // A few hundred due right now, among the million.
    await c.query(
      `UPDATE enrollments SET next_step_at = now() - interval '1 minute' WHERE id IN (
         SELECT id FROM enrollments WHERE status = 'active' ORDER BY id LIMIT 300)`,
    );
    await c.query('VACUUM ANALYZE enrollments');
    await c.query('VACUUM ANALYZE campaigns');
    const total = (await c.query('SELECT count(*)::int AS n FROM enrollments')).rows[0].n;
    await c.query('BEGIN');
    const plan = (
      await c.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${DUE_ENROLLMENTS_SQL}`, [100])
    ).rows.map((r) => r['QUERY PLAN']);
    await c.query('ROLLBACK');
    const idOnly = (
      await c.query(
        `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT id FROM enrollments WHERE status = 'active' AND next_step_at <= now()
         ORDER BY next_step_at, id LIMIT 100`,
      )
    ).rows.map((r) => r['QUERY PLAN']);
    return { enrollments: total, claim_query_plan: plan, due_ids_only_plan: idOnly };
  });
  for (const line of result.explain.claim_query_plan) log('  ', line);
  result.uses_idx_enrollments_due = result.explain.claim_query_plan.some((l) =>
    l.includes('idx_enrollments_due'),
  );
} finally {
  if (worker) worker.kill('SIGKILL');
  smtp.close();
  await withClient(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`));
  await lib
    .deleteRedisPrefix(env.REDIS_URL, env.REDIS_PREFIX)
    .catch((e) => log('redis cleanup failed', e.message));
}
// One line: bench/run.mjs reads the last line of stdout as the result.
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0);
