/**
 * Pieces the benchmark scripts share: free ports, scratch-database clients, the admin CLI, child
 * processes that must answer before a run, autocannon with the server's own CPU per request, /proc
 * readings, Redis clean-up and a DNS server for address verification.
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import dns2 from 'dns2';
import { Redis } from 'ioredis';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';

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

/**
 * A local DNS server (dns2, UDP on 127.0.0.1) answering every MX question with one host, `mx.<name>`,
 * `delayMs` late, so address verification runs without outside DNS: `address` for DNS_SERVERS,
 * `queries()` the questions received so far, `close()`.
 */
export async function mxDnsServer({ delayMs = 5 } = {}) {
  const { Packet } = dns2;
  let queries = 0;
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      queries++;
      const response = Packet.createResponseFromRequest(request);
      const [q] = request.questions;
      if (q.type === Packet.TYPE.MX)
        response.answers.push({
          name: q.name,
          type: Packet.TYPE.MX,
          class: Packet.CLASS.IN,
          ttl: 300,
          exchange: `mx.${q.name}`,
          priority: 10,
        });
      setTimeout(() => void send(response), delayMs);
    },
  });
  await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  return {
    address: `127.0.0.1:${server.addresses().udp.port}`,
    queries: () => queries,
    close: () => server.close(),
  };
}

/**
 * A local SMTP server that accepts everything and counts: `accepted()`, `lastAcceptedAt()`
 * (performance.now() of the last acceptance), `reaches(n)` (resolves once n were accepted), `close()`.
 */
export async function smtpSink() {
  let accepted = 0;
  let lastAcceptedAt = 0;
  let waiters = [];
  const server = new SMTPServer({
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
  const port = await freePort();
  await new Promise((r) => server.listen(port, '127.0.0.1', r));
  return {
    port,
    accepted: () => accepted,
    lastAcceptedAt: () => lastAcceptedAt,
    reaches: (n) =>
      new Promise((resolve) => {
        const check = () => {
          if (accepted >= n) {
            waiters = waiters.filter((w) => w !== check);
            resolve();
          }
        };
        waiters.push(check);
        check();
      }),
    close: () => server.close(),
  };
}

/**
 * One organization, workspace, inbox (sealed SMTP settings for 127.0.0.1:`smtpPort`, daily limit
 * 100,000), published sequence of `steps` and active campaign sending every day around the clock,
 * inserted with client `c` on a migrated database. Needs dist/ (the inbox's settings are sealed as
 * the service seals them). Returns { ws, inbox, campaign }.
 */
export async function seedSendingTenant(c, { smtpPort, steps }) {
  const { sealSettings, hashInboundSecret } = await import(
    join(root, 'dist/modules/inboxes/inbox-credentials.js')
  );
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
  return { ws, inbox, campaign };
}
