#!/usr/bin/env node
/**
 * `npm run bench` (after `nest build`): benchmarks of the built service, each next to a baseline
 * measured in the same run on the same machine.
 *
 * 1. GET /api/v1/me with a valid workspace key (auth + rate-limit path), autocannon at BENCH_CONNECTIONS
 *    (32) for BENCH_DURATION seconds (10), next to bench/me-baseline.mjs (node:http + pg doing the same
 *    hashed-key lookup). Prints requests/s, p50, p99 and the ratio (target >= 40 %).
 * 2. Start to ready of `node dist/main.js` on an existing (migrated) database, and its idle RSS
 *    (targets <= 5 s and <= 250 MB).
 * 3. The other benchmarks, when present: bench/webhooks.mjs, bench/imports.mjs, bench/sending.mjs,
 *    bench/contacts.mjs, bench/metrics.mjs (/me while 200 clients scrape /metrics),
 *    bench/mail-reading.mjs (no database: the sisimai corpus through mailparser and readMail), each
 *    as a child process printing one JSON object on stdout.
 *
 *   npm run bench                 # all
 *   node bench/run.mjs me         # only the GET /me benchmark (also: webhooks, imports, sending, contacts,
 *                                 # mail-reading)
 *   npm run bench -- scale        # the scale benchmark (bench/scale.mjs), only when named
 *   npm run bench -- mailboxes    # 1,000 IMAP mailboxes behind a 50 ms round trip (bench/mailboxes.mjs)
 *   npm run bench -- verification # 100,000 addresses at 2,000 domains checked (bench/verification.mjs)
 *   npm run bench -- holds        # 100,000 enrollments, 10,000 held out of office (bench/holds.mjs)
 *
 * BENCH_SERVICE_PATH benchmarks another service path (e.g. /health/live: the framework's floor).
 * BENCH_SERVICE_NODE_ARGS passes node flags to the service (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 * Uses DATABASE_URL as the admin connection (default postgres://postgres@127.0.0.1:5432/postgres): a
 * scratch database is created and dropped. REDIS_URL (default redis://127.0.0.1:6379) with a private
 * key prefix, deleted afterwards. Progress goes to stderr; figures to stdout, then one JSON line.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { loadavg, cpus } from 'node:os';
import { join } from 'node:path';
import * as lib from './lib.mjs';

const { root, sleep, freePort, withClient, stopProcess, httpOk, rssMb } = lib;
const log = (...a) => console.error('[bench]', ...a);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const STARTS = Number(process.env.BENCH_STARTS ?? 3);
const OTHERS = ['webhooks', 'imports', 'sending', 'contacts', 'metrics', 'mail-reading'];
// `scale` (bench/scale.mjs, about 15 minutes) runs only when named: npm run bench -- scale
const ON_REQUEST = ['scale', 'mailboxes', 'verification', 'holds'];
const selected = process.argv.slice(2).length ? process.argv.slice(2) : ['me', ...OTHERS];

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const { adminUrl, dbName, dbUrl, redisPrefix } = lib.scratch('me');
const env = {
  ...process.env,
  DATABASE_URL: dbUrl,
  REDIS_URL: redisUrl,
  REDIS_PREFIX: redisPrefix,
  API_KEY_PEPPER: randomBytes(24).toString('base64url'),
  ENCRYPTION_KEY: randomBytes(32).toString('hex'),
  PUBLIC_URL: 'http://bench.local',
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
  ACCESS_LOG: process.env.BENCH_ACCESS_LOG ?? 'true',
  // Keep the background loops quiet: the benchmark is about the request path.
  SEND_TICK_MS: '60000',
  IMAP_POLL_SECONDS: '3600',
  NODE_OPTIONS: '',
};

const admin = (sql) => withClient(adminUrl, (c) => c.query(sql));
const cli = (...args) => lib.cli(env, ...args);
/** The service may get node flags (BENCH_SERVICE_NODE_ARGS, e.g. `--cpu-prof`). */
const startProcess = (script, extraEnv, ready, what) =>
  lib.startProcess({
    env: { ...env, ...extraEnv },
    script,
    ready,
    what,
    nodeArgs:
      script === 'dist/main.js' && process.env.BENCH_SERVICE_NODE_ARGS
        ? process.env.BENCH_SERVICE_NODE_ARGS.split(' ')
        : [],
  });
const cannon = (url, token, duration, pid) =>
  lib.cannon({ url, token, duration, pid, connections: CONNECTIONS });
const deleteRedisPrefix = (prefix) => lib.deleteRedisPrefix(redisUrl, prefix);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function benchMe() {
  log(`scratch database ${dbName}, Redis prefix ${redisPrefix}`);
  await admin(`CREATE DATABASE ${dbName}`);
  const procs = [];
  try {
    log('migrating and creating a tenant with the CLI ...');
    await cli('migrate');
    const org = await cli('org:create', '--name', 'Bench Agency');
    const ws = await cli('workspace:create', '--org', org.id, '--name', 'Bench Workspace');
    // A rate limit far above what the run can send, so the limiter counts but never refuses.
    const key = await cli(
      'key:create',
      '--tier',
      'workspace',
      '--workspace',
      ws.id,
      '--scopes',
      'contacts:read',
      '--rate-limit',
      '1000000000',
    );

    // Start to ready on the existing database: spawn until /health/ready answers 200, several times.
    const startMs = [];
    let service;
    for (let i = 0; i < STARTS; i++) {
      const port = await freePort();
      const s = await startProcess(
        'dist/main.js',
        { PORT: String(port) },
        httpOk(`http://127.0.0.1:${port}/health/ready`),
        'service',
      );
      startMs.push(Math.round(s.ms));
      if (i < STARTS - 1) await stopProcess(s.proc);
      else service = { ...s, port };
    }
    procs.push(service.proc);
    log(`start to ready: ${startMs.join(', ')} ms`);
    await sleep(3000);
    const idleRss = rssMb(service.proc.pid);

    const basePort = await freePort();
    const baseline = await startProcess(
      'bench/me-baseline.mjs',
      { PORT: String(basePort) },
      async () =>
        (await fetch(`http://127.0.0.1:${basePort}/`, { headers: { authorization: `Bearer ${key.token}` } }))
          .status === 200,
      'baseline',
    );
    procs.push(baseline.proc);

    // BENCH_SERVICE_PATH (diagnostics): another service path, e.g. /health/live for the framework floor.
    const serviceUrl = `http://127.0.0.1:${service.port}${process.env.BENCH_SERVICE_PATH ?? '/api/v1/me'}`;
    const baselineUrl = `http://127.0.0.1:${basePort}/`;
    const check = await fetch(serviceUrl, { headers: { authorization: `Bearer ${key.token}` } });
    if (check.status !== 200) throw new Error(`service GET /me answered ${check.status}`);

    log(`warm-up ${WARMUP} s each ...`);
    await cannon(baselineUrl, key.token, WARMUP);
    await cannon(serviceUrl, key.token, WARMUP);
    log(`GET /me, ${CONNECTIONS} connections, ${DURATION} s each: baseline, service ...`);
    const base = await cannon(baselineUrl, key.token, DURATION, baseline.proc.pid);
    const svc = await cannon(serviceUrl, key.token, DURATION, service.proc.pid);
    const loadedRss = rssMb(service.proc.pid);
    if (process.env.BENCH_SHOW_OUTPUT) log(`service output (end):\n${service.tail()}`);
    if (svc.non_2xx || svc.errors)
      log(`warning: service had ${svc.non_2xx} non-2xx answers and ${svc.errors} errors`);
    if (base.non_2xx || base.errors)
      log(`warning: baseline had ${base.non_2xx} non-2xx answers and ${base.errors} errors`);

    // Restarting on the now-used database once more, with the load gone.
    const ratio = svc.requests_per_s / base.requests_per_s;
    return {
      benchmark: 'GET /api/v1/me',
      connections: CONNECTIONS,
      duration_s: DURATION,
      access_log: env.ACCESS_LOG !== 'false',
      service: svc,
      baseline: base,
      ratio: Math.round(ratio * 1000) / 1000,
      cpu_ratio: Math.round((svc.cpu_ms_per_request / base.cpu_ms_per_request) * 100) / 100,
      ratio_target: 0.4,
      start_to_ready_ms: { runs: startMs, median: median(startMs), target: 5000 },
      idle_rss_mb: { value: idleRss, target: 250 },
      rss_after_load_mb: loadedRss,
    };
  } finally {
    for (const p of procs.reverse()) await stopProcess(p);
    await admin(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch((e) =>
      log('could not drop database:', e.message),
    );
    await deleteRedisPrefix(redisPrefix).catch((e) => log('could not clean Redis:', e.message));
  }
}

/** Runs another bench script as a child process; its stdout is one JSON object. */
async function runOther(name) {
  const script = join(root, 'bench', `${name}.mjs`);
  if (!existsSync(script)) {
    log(`${name}: bench/${name}.mjs not present, skipped`);
    return { benchmark: name, skipped: 'not present' };
  }
  log(`${name}: running bench/${name}.mjs ...`);
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [script], {
      cwd: root,
      env: { ...process.env, NODE_OPTIONS: '' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    proc.stdout.on('data', (d) => (out += d.toString()));
    proc.on('exit', (code) => {
      const lines = out.trim().split('\n').filter(Boolean);
      const last = lines.pop() ?? '';
      // The script's own table of figures, then its JSON line below.
      if (lines.length) console.log(lines.join('\n'));
      try {
        resolve({ benchmark: name, exit_code: code, ...JSON.parse(last) });
      } catch {
        resolve({ benchmark: name, exit_code: code, output: out.trim().slice(-2000) });
      }
    });
  });
}

function printMe(r) {
  const row = (label, x) =>
    `  ${label.padEnd(10)} ${String(x.requests_per_s).padStart(8)} req/s   p50 ${String(x.p50_ms).padStart(4)} ms   p99 ${String(x.p99_ms).padStart(4)} ms   ${String(x.cpu_ms_per_request).padStart(6)} CPU ms/req   (${x.total} requests, ${x.non_2xx} non-2xx, ${x.errors} errors)`;
  console.log(
    `GET /api/v1/me, ${r.connections} connections, ${r.duration_s} s (access log ${r.access_log ? 'on' : 'off'})`,
  );
  console.log(row('service', r.service));
  console.log(row('baseline', r.baseline));
  console.log(
    `  ratio      ${(r.ratio * 100).toFixed(1)} % of the baseline's requests/s (target >= 40 %); CPU per request ${r.cpu_ratio}x the baseline's`,
  );
  console.log(
    `start to ready (existing database): ${r.start_to_ready_ms.runs.join(', ')} ms, median ${r.start_to_ready_ms.median} ms (target <= 5000)`,
  );
  console.log(
    `idle RSS: ${r.idle_rss_mb.value} MB (target <= 250); after the load: ${r.rss_after_load_mb} MB`,
  );
}

const machine = {
  cpus: cpus().length,
  loadavg_1m_before: Math.round(loadavg()[0] * 100) / 100,
  node: process.version,
};
log(`machine: ${machine.cpus} CPUs, load average ${machine.loadavg_1m_before}, node ${machine.node}`);
if (!existsSync(join(root, 'dist/main.js'))) {
  log('dist/ is missing: run `npm run bench` (it builds first)');
  process.exit(1);
}
const results = [];
let failed = false;
if (selected.includes('me')) {
  try {
    const me = await benchMe();
    printMe(me);
    results.push(me);
  } catch (err) {
    failed = true;
    log('GET /me benchmark failed:', err instanceof Error ? err.message : String(err));
    results.push({ benchmark: 'GET /api/v1/me', error: String(err) });
  }
}
for (const name of [...OTHERS, ...ON_REQUEST].filter((n) => selected.includes(n))) {
  const r = await runOther(name);
  if (r.exit_code) failed = true;
  console.log(`${name}: ${JSON.stringify(r)}`);
  results.push(r);
}
console.log(JSON.stringify({ machine, results }));
process.exit(failed ? 1 : 0);
