/**
 * Pieces the benchmark scripts share: free ports, scratch-database clients, the admin CLI, child
 * processes that must answer before a run, autocannon with the server's own CPU per request, /proc
 * readings and Redis clean-up.
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import pg from 'pg';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export async function freePort() {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => ok(port));
    });
  });
}

/** A connected pg client on `url`; the caller ends it. */
export async function connect(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}

/** Runs `fn` with a connected pg client on `url`, closing it afterwards. */
export async function withClient(url, fn) {
  const client = await connect(url);
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** `node dist/cli.js <args> --json` with `env`; returns the parsed JSON object. */
export async function cli(env, ...args) {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [join(root, 'dist/cli.js'), ...args, '--json'],
    {
      cwd: root,
      env,
    },
  );
  return JSON.parse(stdout);
}

/**
 * Spawns `node [nodeArgs] script` and resolves once `ready()` answers true; returns the child, the
 * elapsed ms and its output (the start kept, the rest read and dropped as a log shipper would).
 * Without `ready()`: ready once `readyLine` appears in its output, or, without either, at once.
 * `stdio` as for spawn(); only the streams piped are kept.
 */
export async function startProcess({
  env,
  script,
  ready,
  readyLine,
  what,
  nodeArgs = [],
  stdio = ['ignore', 'pipe', 'pipe'],
}) {
  const started = process.hrtime.bigint();
  const proc = spawn(process.execPath, [...nodeArgs, script], {
    cwd: root,
    env,
    stdio,
  });
  let output = '';
  let tail = '';
  let sawLine = false;
  const keep = (d) => {
    if (output.length < 20_000) output += d.toString();
    if (readyLine && !sawLine) sawLine = (tail + d.toString()).includes(readyLine);
    tail = (tail + d.toString()).slice(-5000);
  };
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  const isReady = ready ?? (async () => !readyLine || sawLine);
  const deadline = Date.now() + 60_000;
  while (!(await isReady().catch(() => false))) {
    if (proc.exitCode !== null) throw new Error(`${what} exited with ${proc.exitCode}:\n${output}`);
    if (Date.now() > deadline) throw new Error(`${what} not ready after 60 s:\n${output}`);
    await sleep(10);
  }
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  return { proc, ms, output: () => output, tail: () => tail };
}

/** SIGTERM, then SIGKILL if it has not exited after `graceMs`; resolves once it has exited. */
export async function stopProcess(proc, graceMs = 15_000) {
  if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

export const httpOk = (url) => async () => (await fetch(url)).status === 200;

/** CPU time (user + system) a process has used so far, in ms, from /proc/<pid>/stat. */
export function cpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (100/s)
}

/** Resident set size in kB from /proc/<pid>/status; NaN when it has none (a zombie). */
export function rssKb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN);
}

export function rssMb(pid) {
  return Math.round((rssKb(pid) / 1024) * 10) / 10;
}

/** autocannon with a bearer token; also the server's own CPU time per answered request (pid given). */
export async function cannon({ url, token, duration, connections, pid }) {
  const cpuBefore = pid ? cpuMs(pid) : 0;
  const result = await autocannon({
    url,
    connections,
    duration,
    headers: { authorization: `Bearer ${token}` },
  });
  return {
    requests_per_s: Math.round(result.requests.average),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    non_2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    total: result.requests.total,
    bytes_per_response: result.requests.total
      ? Math.round(result.throughput.total / result.requests.total)
      : null,
    // Independent of how busy the machine is: the server's own CPU time per answered request.
    cpu_ms_per_request: pid
      ? Math.round(((cpuMs(pid) - cpuBefore) / result.requests.total) * 1000) / 1000
      : null,
  };
}

export async function deleteRedisPrefix(redisUrl, prefix) {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/**
 * A scratch database on DATABASE_URL's server (default postgres://postgres@127.0.0.1:5432/postgres),
 * named after `kind`, and the Redis key prefix that goes with it. Nothing is created here.
 */
export function scratch(kind) {
  const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const dbName = `bench_${kind}_${Date.now()}_${randomBytes(3).toString('hex')}`;
  const u = new URL(adminUrl);
  u.pathname = `/${dbName}`;
  return { adminUrl, dbName, dbUrl: u.toString(), redisPrefix: `bench:${dbName}` };
}
