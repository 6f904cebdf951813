#!/usr/bin/env node
/**
 * Import benchmark (not a test): BENCH_ROWS (100,000) contacts end to end through the running
 * service (POST /contacts/import → 202 → GET /imports/{id} until completed), with rows/s and the
 * service process's RSS growth, next to PostgreSQL COPY of the same rows into a scratch table with
 * the same indexes, and a multi-row INSERT (unnest arrays via pg) of them, in the same run.
 * BENCH_RUNS (3) runs of each; best and median are printed (the machine may be shared).
 *
 * The import's own rate with address verification off and on, in the same run (BENCH_IMPORT_VERIFY:
 * `both`, the default, or `off` / `on` alone): each run starts the service afresh, with
 * VERIFY_ADDRESSES=false, or with VERIFY_ADDRESSES=true and DNS_SERVERS at a local DNS server answering
 * every MX question BENCH_DNS_DELAY_MS (5 ms) late, so the `contact-verification` loop checks the
 * imported contacts while the import runs, in the same process (APP_ROLE=all). Off and on runs
 * alternate, so a shared machine's load moves both alike. An `on` run also waits until every contact
 * it imported is checked, and reports how long that took from the POST. The `service_*` figures and
 * the ratio to COPY are the first mode's (verification off when both run).
 *
 *   npx nest build && node bench/imports.mjs
 *
 * Uses DATABASE_URL's server (a scratch database is created and dropped) and REDIS_URL (default
 * redis://127.0.0.1:6379, a private key prefix). The service runs as a child process
 * (`node dist/main.js`, APP_ROLE=all) exactly as in production. Prints one JSON object on stdout.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as lib from './lib.mjs';

const { root, sleep, freePort, connect, withClient, stopProcess } = lib;
const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const PHASES = { both: ['off', 'on'], off: ['off'], on: ['on'] }[process.env.BENCH_IMPORT_VERIFY ?? 'both'];
if (!PHASES) throw new Error('BENCH_IMPORT_VERIFY: both, off or on');
const DNS_DELAY_MS = Number(process.env.BENCH_DNS_DELAY_MS ?? 5);
/** Runs of each side (fresh addresses each run); the best and the median are reported. */
const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 3));
const log = (...a) => console.error('[bench:imports]', ...a);
let stopping = false;

const { adminUrl, dbName, dbUrl } = lib.scratch('imports');

const port = await freePort();
const env = {
  ...process.env,
  DATABASE_URL: dbUrl,
  REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  REDIS_PREFIX: `bench:${dbName}`,
  API_KEY_PEPPER: randomBytes(24).toString('base64url'),
  ENCRYPTION_KEY: randomBytes(32).toString('hex'),
  APP_ROLE: 'all',
  LOG_LEVEL: 'warn',
  ACCESS_LOG: 'false',
  PORT: String(port),
  PUBLIC_URL: `http://127.0.0.1:${port}`,
};

const admin = (sql) => withClient(adminUrl, (c) => c.query(sql));
const cli = (...args) => lib.cli({ ...env, RUN_MIGRATIONS: 'false' }, ...args);

/** RSS in MB, unrounded; 0 once the process is gone (main() reports why) or has none. */
function rssMb(pid) {
  try {
    return (lib.rssKb(pid) || 0) / 1024;
  } catch {
    return 0;
  }
}

/** The service, ready once it logs `listening on`; an exit before it is stopped is reported. */
async function startService(extraEnv) {
  // BENCH_NODE_ARGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) go to the service process.
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  stopping = false;
  const { proc, tail } = await lib.startProcess({
    env: { ...env, ...extraEnv },
    script: join(root, 'dist/main.js'),
    readyLine: 'listening on',
    what: 'service',
    nodeArgs,
  });
  proc.once('exit', (code) => {
    if (!stopping) {
      log(`service exited (${code}): ${tail().slice(-2000)}`);
      process.exitCode = 1;
    }
  });
  return proc;
}

function makeRows(n, run = 0) {
  return Array.from({ length: n }, (_, i) => ({
    email: `r${run}-person${i}@bench${i % 50}.example.com`,
    first_name: `First${i}`,
    last_name: `Last${i}`,
    company: `Company ${i % 1000}`,
    title: 'Engineer',
    custom_fields: { segment: `s${i % 7}`, source_list: 'bench' },
  }));
}

async function copyBaseline(client, rows, workspaceId) {
  // The same rows, the same indexes as contacts, loaded with COPY from a server-readable file.
  await client.query('CREATE TABLE bench_copy (LIKE contacts INCLUDING ALL)');
  const file = join(tmpdir(), `${dbName}.csv`);
  const esc = (v) => `"${String(v).replace(/"/g, '""')}"`;
  writeFileSync(
    file,
    rows
      .map((r) =>
        [
          workspaceId,
          r.email,
          r.first_name,
          r.last_name,
          r.company,
          r.title,
          JSON.stringify(r.custom_fields),
          'import',
        ]
          .map(esc)
          .join(','),
      )
      .join('\n') + '\n',
  );
  chmodSync(file, 0o644);
  let copySeconds = null;
  try {
    const t = performance.now();
    await client.query(
      `COPY bench_copy (workspace_id, email, first_name, last_name, company, title, custom_fields, source)
       FROM '${file}' WITH (FORMAT csv)`,
    );
    copySeconds = (performance.now() - t) / 1000;
  } catch (err) {
    log(`server-side COPY unavailable (${err.message}); only the INSERT baseline is reported`);
  } finally {
    rmSync(file, { force: true });
  }
  await client.query('TRUNCATE bench_copy');
  const t = performance.now();
  for (let i = 0; i < rows.length; i += 10_000) {
    const part = rows.slice(i, i + 10_000);
    await client.query(
      `INSERT INTO bench_copy (workspace_id, email, first_name, last_name, company, title, custom_fields, source)
       SELECT $1, u.email, u.first_name, u.last_name, u.company, u.title, u.cf, 'import'
       FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::jsonb[])
            AS u(email, first_name, last_name, company, title, cf)`,
      [
        workspaceId,
        part.map((r) => r.email),
        part.map((r) => r.first_name),
        part.map((r) => r.last_name),
        part.map((r) => r.company),
        part.map((r) => r.title),
        part.map((r) => JSON.stringify(r.custom_fields)),
      ],
    );
  }
  const insertSeconds = (performance.now() - t) / 1000;
  await client.query('DROP TABLE bench_copy');
  return { copySeconds, insertSeconds };
}

/** The contacts of `workspaceId` due for their first check. */
async function pendingChecks(client, workspaceId) {
  const {
    rows: [{ n }],
  } = await client.query(
    `SELECT count(*)::int AS n FROM contacts WHERE workspace_id = $1 AND verification_status = 'pending'
       AND verification_due_at IS NOT NULL`,
    [workspaceId],
  );
  return n;
}

/**
 * One import of ROWS fresh rows (numbered `run`) through a service started for it with verification
 * `mode` ('off' or 'on'). Returns its times and the service's RSS before and at its peak.
 */
async function importRun({ mode, run, client, workspaceId, token, dnsAddress }) {
  // The contacts of earlier runs with verification off are left unchecked (not due), so the loop checks
  // only this run's; the table is vacuumed, so a run does not pay for the dead rows of the one before.
  if (mode === 'on')
    await client.query(
      `UPDATE contacts SET verification_due_at = NULL WHERE workspace_id = $1 AND verification_status = 'pending'`,
      [workspaceId],
    );
  await client.query('VACUUM ANALYZE contacts');
  const service = await startService(
    mode === 'on' ? { VERIFY_ADDRESSES: 'true', DNS_SERVERS: dnsAddress } : { VERIFY_ADDRESSES: 'false' },
  );
  try {
    const base = `http://127.0.0.1:${port}/api/v1`;
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const waitDone = async (id) => {
      for (;;) {
        const res = await fetch(`${base}/imports/${id}`, { headers });
        if (res.status !== 200)
          throw new Error(`GET /imports/${id} answered ${res.status}: ${await res.text()}`);
        const view = (await res.json()).data;
        if (view.status === 'completed' || view.status === 'failed') return view;
        await sleep(25);
      }
    };
    // Warm-up: one small import so first-request costs (JIT, pools) are not measured.
    const warm = await fetch(`${base}/contacts/import`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ contacts: [{ email: `warmup-${run}@example.com` }] }),
    });
    await waitDone((await warm.json()).data.id);
    if (mode === 'on') while ((await pendingChecks(client, workspaceId)) > 0) await sleep(50);
    const rssBefore = rssMb(service.pid);
    let rssPeak = rssBefore;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, rssMb(service.pid));
    }, 25);

    const rows = makeRows(ROWS, run);
    const body = JSON.stringify({ contacts: rows });
    if (run === 0) log(`${ROWS} rows, request body ${(body.length / 1e6).toFixed(1)} MB, ${RUNS} runs`);
    const started = performance.now();
    const res = await fetch(`${base}/contacts/import`, { method: 'POST', headers, body });
    const accepted = await res.json();
    if (res.status !== 202) throw new Error(`POST answered ${res.status}: ${JSON.stringify(accepted)}`);
    const acceptedSeconds = (performance.now() - started) / 1000;
    const view = await waitDone(accepted.data.id);
    const seconds = (performance.now() - started) / 1000;
    if (view.status !== 'completed' || view.created_count !== ROWS) {
      throw new Error(`import did not complete as expected: ${JSON.stringify(view).slice(0, 500)}`);
    }
    // With verification on: until every contact of the run is checked (the next run starts after).
    let checkedSeconds = null;
    if (mode === 'on') {
      while ((await pendingChecks(client, workspaceId)) > 0) await sleep(50);
      checkedSeconds = (performance.now() - started) / 1000;
    }
    clearInterval(sampler);
    rssPeak = Math.max(rssPeak, rssMb(service.pid));
    log(
      `service run ${run + 1}, verification ${mode}: ${seconds.toFixed(2)} s (202 after ${acceptedSeconds.toFixed(2)} s)` +
        (checkedSeconds === null ? '' : `, all checked after ${checkedSeconds.toFixed(2)} s`),
    );
    return { run, seconds, acceptedSeconds, checkedSeconds, rssBefore, rssPeak };
  } finally {
    stopping = true;
    await stopProcess(service, 8000);
  }
}

async function main() {
  await admin(`CREATE DATABASE ${dbName}`);
  let client;
  let dns;
  try {
    Object.assign(process.env, env);
    const { runMigrations } = await import(join(root, 'dist/database/migrate.js'));
    await runMigrations(dbUrl);
    client = await connect(dbUrl);
    const org = await cli(
      'org:create',
      '--name',
      'Bench',
      '--import-row-cap',
      String(ROWS),
      '--max-contacts',
      String(ROWS * (RUNS * PHASES.length + 1)),
    );
    const ws = await cli('workspace:create', '--org', org.id, '--name', 'Bench');
    const key = await cli(
      'key:create',
      '--tier',
      'workspace',
      '--workspace',
      ws.id,
      '--scopes',
      'imports:write,imports:read',
      // Far above the polling of GET /imports/{id}: a slow run (a busy machine, checks on) must not
      // meet the key's rate limit.
      '--rate-limit',
      '1000000000',
    );
    dns = await lib.mxDnsServer({ delayMs: DNS_DELAY_MS });
    const phases = Object.fromEntries(PHASES.map((mode) => [mode, []]));
    for (let r = 0; r < RUNS; r += 1) {
      for (const [i, mode] of PHASES.entries()) {
        phases[mode].push(
          await importRun({
            mode,
            run: r * PHASES.length + i,
            client,
            workspaceId: ws.id,
            token: key.token,
            dnsAddress: dns.address,
          }),
        );
      }
    }
    const runs = phases[PHASES[0]];
    // The last run's rows again, for the baselines.
    const rows = makeRows(ROWS, runs[runs.length - 1].run);
    const rssBefore = Math.min(...runs.map((x) => x.rssBefore));
    const rssPeak = Math.max(...runs.map((x) => x.rssPeak));
    const {
      rows: [{ n }],
    } = await client.query('SELECT count(*)::int AS n FROM contacts WHERE workspace_id = $1', [ws.id]);
    const {
      rows: [{ e }],
    } = await client.query(
      `SELECT count(*)::int AS e FROM events WHERE workspace_id = $1 AND type = 'contact.created'`,
      [ws.id],
    );

    const copies = [];
    for (let run = 0; run < RUNS; run += 1) {
      const c = await copyBaseline(client, rows, ws.id);
      log(
        `COPY run ${run + 1}: ${c.copySeconds?.toFixed(2)} s; INSERT unnest ${c.insertSeconds.toFixed(2)} s`,
      );
      copies.push(c);
    }
    const best = (xs) => Math.min(...xs);
    const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
    const serviceBest = best(runs.map((r) => r.seconds));
    const serviceMedian = median(runs.map((r) => r.seconds));
    const copyTimes = copies.map((c) => c.copySeconds).filter((x) => x !== null);
    const copyBest = copyTimes.length ? best(copyTimes) : null;
    const copyMedian = copyTimes.length ? median(copyTimes) : null;
    const insertBest = best(copies.map((c) => c.insertSeconds));
    const perSecond = ROWS / serviceBest;
    /** One phase's figures: the import's rate, and with verification on how soon all were checked. */
    const phaseFigures = (p) => {
      const checked = p.map((r) => r.checkedSeconds).filter((x) => x !== null);
      return {
        rows_per_second_best: Math.round(ROWS / best(p.map((r) => r.seconds))),
        rows_per_second_median: Math.round(ROWS / median(p.map((r) => r.seconds))),
        seconds: p.map((r) => round(r.seconds)),
        rss_growth_mb_max: Math.round(Math.max(...p.map((r) => r.rssPeak - r.rssBefore))),
        ...(checked.length
          ? {
              all_checked_seconds: checked.map((x) => round(x)),
              checked_per_second_best: Math.round(ROWS / best(checked)),
            }
          : {}),
      };
    };
    const verification = Object.fromEntries(PHASES.map((mode) => [mode, phaseFigures(phases[mode])]));
    const result = {
      bench: 'imports',
      rows: ROWS,
      runs: RUNS,
      verification_phases: PHASES,
      service_seconds_best: round(serviceBest),
      service_seconds_median: round(serviceMedian),
      service_accepted_seconds_best: round(best(runs.map((r) => r.acceptedSeconds))),
      service_rows_per_second_best: Math.round(perSecond),
      service_rows_per_second_median: Math.round(ROWS / serviceMedian),
      service_rss_before_mb: Math.round(rssBefore),
      service_rss_peak_mb: Math.round(rssPeak),
      service_rss_growth_mb: Math.round(rssPeak - rssBefore),
      verification_off: verification.off ?? null,
      verification_on: verification.on ?? null,
      verification_on_to_off_median:
        verification.on && verification.off
          ? round(verification.on.rows_per_second_median / verification.off.rows_per_second_median)
          : null,
      dns_queries: dns.queries(),
      copy_seconds_best: copyBest === null ? null : round(copyBest),
      copy_rows_per_second_best: copyBest === null ? null : Math.round(ROWS / copyBest),
      insert_unnest_seconds_best: round(insertBest),
      insert_unnest_rows_per_second_best: Math.round(ROWS / insertBest),
      ratio_to_copy_best: copyBest === null ? null : round(copyBest / serviceBest),
      ratio_to_copy_median: copyMedian === null ? null : round(copyMedian / serviceMedian),
      contacts: n,
      contact_created_events: e,
      load_average: (await import('node:os')).loadavg().map((x) => round(x)),
      target: { rows_per_second: 20000, rss_growth_mb: 300 },
      met: perSecond >= 20000 && rssPeak - rssBefore < 300,
    };
    const line = (mode, f) =>
      `import of ${ROWS} rows, verification ${mode.padEnd(3)}: ${String(f.rows_per_second_median).padStart(6)} rows/s median, ${String(f.rows_per_second_best).padStart(6)} best` +
      (f.checked_per_second_best
        ? `; all checked ${f.all_checked_seconds.join(', ')} s after the POST (${f.checked_per_second_best} contacts/s best)`
        : '');
    for (const mode of PHASES) console.log(line(mode, verification[mode]));
    if (result.verification_on_to_off_median !== null)
      console.log(
        `verification on / off (median): ${(result.verification_on_to_off_median * 100).toFixed(0)} %`,
      );
    console.log(JSON.stringify(result));
  } finally {
    await client?.end().catch(() => {});
    await dns?.close();
    await admin(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch((e) => log('drop failed', e.message));
    await lib
      .deleteRedisPrefix(env.REDIS_URL, env.REDIS_PREFIX)
      .catch((e) => log('redis cleanup failed', e.message));
  }
}

const round = (x) => Math.round(x * 100) / 100;

await main();
