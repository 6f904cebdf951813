#!/usr/bin/env node
/**
 * GET /api/v1/contacts benchmark: a workspace with BENCH_CONTACTS (100,000) contacts,
 * autocannon at BENCH_CONNECTIONS (32) for BENCH_DURATION seconds (10) on `?per_page=25` for page one
 * and for a page deep in the list (the cursor after row ~90 % of the list, found by paging the API
 * once with per_page=100), each next to bench/contacts-baseline.mjs (node:http + pg running the same
 * keyset query and answering the same envelope) measured in the same run.
 * Targets: service >= 50 % of the baseline's requests/s, p99 <= 50 ms, deep page within 20 % of page one.
 *
 *   npx nest build && node bench/contacts.mjs
 *
 * Uses DATABASE_URL as the admin connection (default postgres://postgres@127.0.0.1:5432/postgres): a
 * scratch database is created and dropped. REDIS_URL (default redis://127.0.0.1:6379) with a private
 * key prefix, deleted afterwards. Progress goes to stderr; figures to stdout, then one JSON line.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import * as lib from './lib.mjs';

const { root, freePort, withClient, stopProcess } = lib;
const log = (...a) => console.error('[bench:contacts]', ...a);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 100_000);
const DEEP_ROW = Math.round(CONTACTS * 0.9);
const PER_PAGE = 25;

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const { adminUrl, dbName, dbUrl, redisPrefix } = lib.scratch('contacts');
const cursorKey = randomBytes(32).toString('hex');
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

/** The baseline's cursor for the same keyset position as a service cursor (same payload, its own key). */
function baselineCursor(workspaceId, serviceCursor) {
  const body = serviceCursor.split('.')[0];
  const sig = createHmac('sha256', Buffer.from(cursorKey, 'hex'))
    .update(`${workspaceId}|contacts.index|${body}`)
    .digest()
    .subarray(0, 16)
    .toString('base64url');
  return `${body}.${sig}`;
}

async function getJson(url, token) {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${await res.text()}`);
  return res.json();
}

const cli = (...args) => lib.cli(env, ...args);
// BENCH_NODE_ARGS, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`, is passed to the service and the baseline.
const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
const startProcess = async (script, extraEnv, ready, what) =>
  (await lib.startProcess({ env: { ...env, ...extraEnv }, script, ready, what, nodeArgs })).proc;
const cannon = (url, token, duration, pid) =>
  lib.cannon({ url, token, duration, pid, connections: CONNECTIONS });
const deleteRedisPrefix = (prefix) => lib.deleteRedisPrefix(redisUrl, prefix);

const round = (x, d = 3) => Math.round(x * 10 ** d) / 10 ** d;

async function main() {
  log(`scratch database ${dbName}, Redis prefix ${redisPrefix}`);
  await withClient(adminUrl, (c) => c.query(`CREATE DATABASE ${dbName}`));
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

    log(`inserting ${CONTACTS} contacts ...`);
    const t0 = Date.now();
    await withClient(dbUrl, async (c) => {
      // Pairs of rows share a created_at, so the id tiebreak of the keyset is exercised too.
      await c.query(
        `INSERT INTO contacts (workspace_id, email, first_name, last_name, company, title, phone, timezone,
                               custom_fields, stage, source, created_at, updated_at)
         SELECT $1, 'contact' || g || '@example' || (g % 500) || '.com', 'First' || g, 'Last' || g,
                'Company ' || (g % 1000), 'Head of Things', '+1555' || lpad(g::text, 7, '0'), 'Europe/Paris',
                jsonb_build_object('plan', 'p' || (g % 7), 'seats', (g % 90)::text),
                (ARRAY['new','contacted','replied','interested','not_interested','customer'])[1 + g % 6],
                'import', ts, ts
           FROM generate_series(1, $2::int) AS g,
                LATERAL (SELECT timestamptz '2026-01-01T00:00:00Z' + (g / 2) * interval '1 second' AS ts) t`,
        [ws.id, CONTACTS],
      );
      await c.query('VACUUM ANALYZE contacts');
    });
    log(`inserted in ${Date.now() - t0} ms`);

    const port = await freePort();
    const service = await startProcess(
      'dist/main.js',
      { PORT: String(port) },
      async () => (await fetch(`http://127.0.0.1:${port}/health/ready`)).status === 200,
      'service',
    );
    procs.push(service);
    const basePort = await freePort();
    const baseline = await startProcess(
      'bench/contacts-baseline.mjs',
      {
        PORT: String(basePort),
        WORKSPACE_ID: ws.id,
        BENCH_TOKEN: key.token,
        CURSOR_KEY: cursorKey,
      },
      async () =>
        (
          await fetch(`http://127.0.0.1:${basePort}/?per_page=1`, {
            headers: { authorization: `Bearer ${key.token}` },
          })
        ).status === 200,
      'baseline',
    );
    procs.push(baseline);

    const svcBase = `http://127.0.0.1:${port}/api/v1/contacts`;
    const baseBase = `http://127.0.0.1:${basePort}/`;

    // The deep cursor: page through the API once, 100 at a time, up to row DEEP_ROW.
    log(`paging to row ${DEEP_ROW} through the API (per_page=100) ...`);
    const t1 = Date.now();
    let cursor = null;
    for (let row = 0; row < DEEP_ROW; row += 100) {
      const page = await getJson(
        `${svcBase}?per_page=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        key.token,
      );
      if (!page.next_cursor) throw new Error(`list ended before row ${row + 100}`);
      cursor = page.next_cursor;
    }
    log(`deep cursor after ${Math.round((Date.now() - t1) / 1000)} s`);

    const urls = {
      page_one: {
        service: `${svcBase}?per_page=${PER_PAGE}`,
        baseline: `${baseBase}?per_page=${PER_PAGE}`,
      },
      deep_page: {
        service: `${svcBase}?per_page=${PER_PAGE}&cursor=${encodeURIComponent(cursor)}`,
        baseline: `${baseBase}?per_page=${PER_PAGE}&cursor=${encodeURIComponent(baselineCursor(ws.id, cursor))}`,
      },
    };
    // Both answer the same rows.
    for (const [name, u] of Object.entries(urls)) {
      const s = await getJson(u.service, key.token);
      const b = await getJson(u.baseline, key.token);
      const ids = (p) => p.data.map((c) => c.id).join(',');
      if (s.data.length !== PER_PAGE || ids(s) !== ids(b)) {
        throw new Error(`${name}: service and baseline answer different rows: ${ids(s)} vs ${ids(b)}`);
      }
      log(`${name}: ids ${s.data[0].id} .. ${s.data[PER_PAGE - 1].id}, same rows in both`);
    }

    const results = {};
    for (const [name, u] of Object.entries(urls)) {
      log(`${name}: warm-up ${WARMUP} s each, then ${DURATION} s each at ${CONNECTIONS} connections ...`);
      await cannon(u.baseline, key.token, WARMUP);
      await cannon(u.service, key.token, WARMUP);
      const base = await cannon(u.baseline, key.token, DURATION, baseline.pid);
      const svc = await cannon(u.service, key.token, DURATION, service.pid);
      if (svc.non_2xx || svc.errors)
        log(`warning: service had ${svc.non_2xx} non-2xx answers and ${svc.errors} errors`);
      if (base.non_2xx || base.errors)
        log(`warning: baseline had ${base.non_2xx} non-2xx answers and ${base.errors} errors`);
      results[name] = {
        service: svc,
        baseline: base,
        ratio: round(svc.requests_per_s / base.requests_per_s),
        cpu_ratio: round(svc.cpu_ms_per_request / base.cpu_ms_per_request, 2),
      };
    }
    const deep = {
      service_rps_ratio: round(
        results.deep_page.service.requests_per_s / results.page_one.service.requests_per_s,
      ),
      service_p99_ratio: round(results.deep_page.service.p99_ms / results.page_one.service.p99_ms),
      baseline_rps_ratio: round(
        results.deep_page.baseline.requests_per_s / results.page_one.baseline.requests_per_s,
      ),
    };
    return {
      benchmark: 'GET /api/v1/contacts?per_page=25',
      contacts: CONTACTS,
      deep_row: DEEP_ROW,
      connections: CONNECTIONS,
      duration_s: DURATION,
      access_log: env.ACCESS_LOG !== 'false',
      ...results,
      deep_vs_page_one: deep,
      targets: { ratio: 0.5, p99_ms: 50, deep_within: 0.2 },
      met: {
        ratio: results.page_one.ratio >= 0.5 && results.deep_page.ratio >= 0.5,
        p99: results.page_one.service.p99_ms <= 50 && results.deep_page.service.p99_ms <= 50,
        deep: Math.abs(1 - deep.service_rps_ratio) <= 0.2,
      },
    };
  } finally {
    for (const p of procs.reverse()) await stopProcess(p);
    await withClient(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`)).catch((e) =>
      log('could not drop database:', e.message),
    );
    await deleteRedisPrefix(redisPrefix).catch((e) => log('could not clean Redis:', e.message));
  }
}

function print(r) {
  const row = (label, x) =>
    `  ${label.padEnd(10)} ${String(x.requests_per_s).padStart(8)} req/s   p50 ${String(x.p50_ms).padStart(4)} ms   p99 ${String(x.p99_ms).padStart(4)} ms   ${String(x.cpu_ms_per_request).padStart(6)} CPU ms/req   ${x.bytes_per_response} B/resp   (${x.total} requests, ${x.non_2xx} non-2xx, ${x.errors} errors)`;
  console.log(
    `GET /api/v1/contacts?per_page=25, ${r.contacts} contacts, ${r.connections} connections, ${r.duration_s} s (access log ${r.access_log ? 'on' : 'off'})`,
  );
  for (const [name, label] of [
    ['page_one', 'page one'],
    ['deep_page', `deep page (cursor after row ${r.deep_row})`],
  ]) {
    console.log(`${label}:`);
    console.log(row('service', r[name].service));
    console.log(row('baseline', r[name].baseline));
    console.log(
      `  ratio      ${(r[name].ratio * 100).toFixed(1)} % of the baseline's requests/s (target >= 50 %); CPU per request ${r[name].cpu_ratio}x the baseline's`,
    );
  }
  console.log(
    `deep / page one (service): requests/s ${r.deep_vs_page_one.service_rps_ratio}, p99 ${r.deep_vs_page_one.service_p99_ratio} (target within 20 %); baseline requests/s ${r.deep_vs_page_one.baseline_rps_ratio}`,
  );
  console.log(`targets met: ${JSON.stringify(r.met)}`);
}

const machine = {
  cpus: cpus().length,
  loadavg_1m_before: Math.round(loadavg()[0] * 100) / 100,
  node: process.version,
};
log(`machine: ${machine.cpus} CPUs, load average ${machine.loadavg_1m_before}, node ${machine.node}`);
if (!existsSync(join(root, 'dist/main.js'))) {
  log('dist/ is missing: run `npx nest build` first');
  process.exit(1);
}
try {
  const r = await main();
  print(r);
  console.log(JSON.stringify({ machine, ...r }));
  process.exit(0);
} catch (err) {
  log('failed:', err instanceof Error ? err.stack : String(err));
  console.log(JSON.stringify({ machine, error: String(err) }));
  process.exit(1);
}
