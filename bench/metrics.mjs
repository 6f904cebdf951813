#!/usr/bin/env node
/**
 * Scrape cost benchmark (not a test): can /metrics be used to slow the API?
 *
 * One service process (`node dist/main.js`, API and workers, METRICS_TOKEN set). GET /api/v1/me is
 * measured twice in the same run, BENCH_ME_CONCURRENCY (4) requests in flight for BENCH_DURATION (10)
 * seconds each: quiet, then while BENCH_SCRAPERS (200) authorised scrapers scrape /metrics
 * concurrently, each once every BENCH_SCRAPE_INTERVAL_MS (250: a wave of 200 concurrent scrapes four
 * times a second, 800 scrapes/s, 12,000 times one Prometheus at 15 s). Target: the loaded p50 of /me
 * within 2x its quiet p50.
 * BENCH_SCRAPE_INTERVAL_MS=0 scrapes back to back instead: a flood of any route, authorised or not,
 * then competes with /me for the CPU, which is what it shows.
 *
 *   npm run bench -- metrics      # or: npx nest build && node bench/metrics.mjs
 *
 * Uses DATABASE_URL's server (a scratch database is created and dropped) and REDIS_URL (default
 * redis://127.0.0.1:6379, a private key prefix). Progress on stderr; one JSON object on stdout.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import * as lib from './lib.mjs';

const { root, sleep, freePort, withClient, stopProcess, httpOk, cpuMs } = lib;
const SCRAPERS = Number(process.env.BENCH_SCRAPERS ?? 200);
const ME_CONCURRENCY = Number(process.env.BENCH_ME_CONCURRENCY ?? 4);
const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const SCRAPE_INTERVAL_MS = Number(process.env.BENCH_SCRAPE_INTERVAL_MS ?? 250);
const WARMUP_S = Number(process.env.BENCH_WARMUP ?? 3);
const TOKEN = randomBytes(24).toString('base64url');
const log = (...a) => console.error('[bench:metrics]', ...a);

if (!existsSync(join(root, 'dist/main.js'))) {
  log('building dist/ ...');
  execFileSync(process.execPath, [join(root, 'scripts/ensure-built.mjs')], { cwd: root, stdio: 'inherit' });
}

const { adminUrl, dbName, dbUrl, redisPrefix } = lib.scratch('metrics');
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const env = {
  ...process.env,
  DATABASE_URL: dbUrl,
  REDIS_URL: redisUrl,
  REDIS_PREFIX: redisPrefix,
  API_KEY_PEPPER: randomBytes(24).toString('base64url'),
  ENCRYPTION_KEY: randomBytes(32).toString('hex'),
  PUBLIC_URL: 'http://bench.local',
  LOG_LEVEL: 'info',
  ACCESS_LOG: 'false',
  METRICS_TOKEN: TOKEN,
  SEND_TICK_MS: '60000',
  IMAP_POLL_SECONDS: '3600',
  NODE_OPTIONS: '',
};
const admin = (sql) => withClient(adminUrl, (c) => c.query(sql));

/** One GET on a keep-alive agent; resolves with [status, ms]. */
function get(agent, port, path, token) {
  return new Promise((resolve) => {
    const started = performance.now();
    const req = request(
      { host: '127.0.0.1', port, path, agent, headers: { authorization: `Bearer ${token}` } },
      (res) => {
        res.on('data', () => {});
        res.on('end', () => resolve([res.statusCode, performance.now() - started]));
      },
    );
    // A reset or refused connection counts as a failed request (status 0), not a crash of the bench.
    req.on('error', () => resolve([0, performance.now() - started]));
    req.end();
  });
}

/**
 * `concurrency` loops of GET `path` until `until`, each starting a request at most once every
 * `intervalMs` (0: back to back); the latencies (ms) and the non-200 count.
 */
async function loop(port, path, token, concurrency, until, intervalMs = 0) {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies = [];
  let bad = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < until) {
        const started = Date.now();
        const [status, ms] = await get(agent, port, path, token);
        if (status === 200) latencies.push(ms);
        else bad += 1;
        const rest = started + intervalMs - Date.now();
        if (rest > 0) await sleep(Math.min(rest, until - Date.now()));
      }
    }),
  );
  agent.destroy();
  return { latencies, bad };
}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length
    ? Math.round(s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))] * 100) / 100
    : null;
};
const summary = ({ latencies, bad }) => ({
  requests: latencies.length,
  non_200: bad,
  p50_ms: pct(latencies, 50),
  p99_ms: pct(latencies, 99),
});

async function main() {
  log(`scratch database ${dbName}`);
  await admin(`CREATE DATABASE ${dbName}`);
  let service;
  try {
    await lib.cli(env, 'migrate');
    const org = await lib.cli(env, 'org:create', '--name', 'Bench Agency');
    const ws = await lib.cli(env, 'workspace:create', '--org', org.id, '--name', 'Bench Workspace');
    const key = await lib.cli(
      env,
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
    const port = await freePort();
    service = await lib.startProcess({
      env: { ...env, PORT: String(port) },
      script: 'dist/main.js',
      ready: httpOk(`http://127.0.0.1:${port}/health/ready`),
      what: 'service',
    });
    const pid = service.proc.pid;
    const [open] = await get(new Agent(), port, '/metrics', 'not-the-token');
    if (open !== 401) throw new Error(`/metrics answered ${open} to a wrong token`);

    log(`warm-up ${WARMUP_S} s ...`);
    await loop(port, '/api/v1/me', key.token, ME_CONCURRENCY, Date.now() + WARMUP_S * 1000);
    await loop(port, '/metrics', TOKEN, 8, Date.now() + WARMUP_S * 1000);

    log(`GET /me quiet: ${ME_CONCURRENCY} in flight, ${DURATION_S} s ...`);
    const quietCpu = cpuMs(pid);
    const quiet = summary(
      await loop(port, '/api/v1/me', key.token, ME_CONCURRENCY, Date.now() + DURATION_S * 1000),
    );
    const quietCpuMs = cpuMs(pid) - quietCpu;

    log(
      `GET /me while ${SCRAPERS} scrapers scrape /metrics ${SCRAPE_INTERVAL_MS ? `every ${SCRAPE_INTERVAL_MS} ms` : 'back to back'}, ${DURATION_S} s ...`,
    );
    const loadedCpu = cpuMs(pid);
    const until = Date.now() + DURATION_S * 1000;
    const [me, scrapes] = await Promise.all([
      loop(port, '/api/v1/me', key.token, ME_CONCURRENCY, until),
      loop(port, '/metrics', TOKEN, SCRAPERS, until, SCRAPE_INTERVAL_MS),
    ]);
    const loadedCpuMs = cpuMs(pid) - loadedCpu;
    const loaded = summary(me);
    const scraped = summary(scrapes);
    const ratio = Math.round((loaded.p50_ms / quiet.p50_ms) * 100) / 100;

    console.log(
      [
        `GET /api/v1/me, ${ME_CONCURRENCY} in flight, ${DURATION_S} s each`,
        `  quiet      p50 ${quiet.p50_ms} ms   p99 ${quiet.p99_ms} ms   (${quiet.requests} requests, ${quiet.non_200} non-200)   service CPU ${Math.round(quietCpuMs)} ms`,
        `  scraped    p50 ${loaded.p50_ms} ms   p99 ${loaded.p99_ms} ms   (${loaded.requests} requests, ${loaded.non_200} non-200)   service CPU ${Math.round(loadedCpuMs)} ms`,
        `  scrapes    ${scraped.requests} by ${SCRAPERS} scrapers, ${SCRAPE_INTERVAL_MS ? `each every ${SCRAPE_INTERVAL_MS} ms` : 'back to back'} (p50 ${scraped.p50_ms} ms, ${scraped.non_200} non-200)`,
        `  ratio      ${ratio}x the quiet p50 (target <= 2)`,
      ].join('\n'),
    );
    return {
      me_concurrency: ME_CONCURRENCY,
      scrapers: SCRAPERS,
      scrape_interval_ms: SCRAPE_INTERVAL_MS,
      duration_s: DURATION_S,
      quiet,
      scraped: loaded,
      scrapes: scraped,
      service_cpu_ms: { quiet: Math.round(quietCpuMs), scraped: Math.round(loadedCpuMs) },
      p50_ratio: ratio,
      p50_ratio_target: 2,
      met: ratio <= 2,
    };
  } finally {
    if (service) await stopProcess(service.proc);
    await admin(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch((e) =>
      log('drop failed:', e.message),
    );
    await lib.deleteRedisPrefix(redisUrl, redisPrefix).catch((e) => log('Redis cleanup failed:', e.message));
  }
}

const result = await main();
await sleep(10);
console.log(JSON.stringify(result));
process.exit(result.met ? 0 : 1);
