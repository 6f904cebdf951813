#!/usr/bin/env node
/**
 * Mailboxes benchmark (not a test): BENCH_MAILBOXES (1,000) real IMAP mailboxes (one Dovecot user
 * each) behind a TCP proxy that adds BENCH_RTT_MS (50) of round trip, read by one worker process
 * (`node dist/main.js`, APP_ROLE=worker) with the service's default settings. One reply per mailbox is
 * appended, spread over BENCH_REPLY_SECONDS (60). Reports:
 *
 * - every reply ingested exactly once (inbound messages per enrollment), arrival → ingestion p50/p99
 *   (arrival = the APPEND answered; ingestion = the inbound message row's created_at);
 * - time to connect every mailbox, logins per mailbox (the metric), and the login bound;
 * - the worker's CPU and RSS with every mailbox connected and idle (per 1,000 mailboxes);
 * - per reply: the worker's CPU, PostgreSQL's CPU (its backends for the scratch database, from /proc)
 *   and transactions / rows (pg_stat_database);
 * - SIGTERM: exit code and time.
 *
 * With BENCH_BEFORE_ROOT (a built checkout of an earlier commit), the earlier worker is measured first
 * on the same mailboxes: the previous poller (a new connection per inbox and poll).
 *
 * Next to it, in the same run, through the same proxy: a raw imapflow loop (this file with `--raw`,
 * its own process): one connection per mailbox opened at the same concurrency, IDLE, and on new
 * mail a UID SEARCH + FETCH of the source — what the service does minus ingestion.
 *
 *   npm run bench -- mailboxes          BENCH_MAILBOXES=200 npm run bench -- mailboxes
 *
 * Needs Dovecot (/usr/sbin/dovecot). Dovecot runs one imap process per connection (about 2-5 MB
 * each); past the machine's inotify limit it checks idling mailboxes every second
 * (mailbox_idle_check_interval) instead of being told at once.
 */
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ImapFlow } from 'imapflow';
import * as lib from './lib.mjs';

const { root, sleep, freePort, withClient, cpuMs, rssMb } = lib;
const N = Number(process.env.BENCH_MAILBOXES ?? 1000);
const RTT_MS = Number(process.env.BENCH_RTT_MS ?? 50);
const REPLY_SECONDS = Number(process.env.BENCH_REPLY_SECONDS ?? 60);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 60);
const OPEN_CONCURRENCY = 4; // IMAP_POLL_CONCURRENCY's default, for the raw loop too
const PASSWORD = 'bench-imap-password';
const log = (...a) => console.error('[bench:mailboxes]', ...a);
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : null;
};
const users = Array.from({ length: N }, (_, i) => `b${String(i + 1).padStart(5, '0')}`);

if (process.argv[2] === '--raw') await rawLoop(Number(process.argv[3]));

// --- the raw imapflow loop (child process) -------------------------------------------------------
async function rawLoop(port) {
  const say = (o) => process.stdout.write(`${JSON.stringify(o)}\n`);
  let connected = 0;
  let next = 0;
  const open = async (user) => {
    const c = new ImapFlow({
      host: '127.0.0.1',
      port,
      secure: false,
      auth: { user, pass: PASSWORD },
      logger: false,
      autoIdleDelay: 1000,
    });
    c.on('error', () => undefined);
    await c.connect();
    const box = await c.mailboxOpen('INBOX', { readOnly: true });
    let last = box.uidNext - 1;
    let busy = false;
    let again = false;
    const read = async () => {
      if (busy) return void (again = true);
      busy = true;
      do {
        again = false;
        const uids = ((await c.search({ uid: `${last + 1}:*` }, { uid: true })) || []).filter(
          (u) => u > last,
        );
        for (const uid of uids.sort((a, b) => a - b)) {
          const msg = await c.fetchOne(String(uid), { uid: true, source: true }, { uid: true });
          const id = /X-Bench-Id: (\S+)/.exec(msg.source.toString())?.[1];
          say({ id, at: Date.now() });
          last = uid;
        }
      } while (again);
      busy = false;
    };
    c.on('exists', () => void read().catch(() => undefined));
  };
  await Promise.all(
    Array.from({ length: OPEN_CONCURRENCY }, async () => {
      while (next < users.length) {
        await open(users[next++]);
        connected += 1;
      }
    }),
  );
  say({ connected });
  await new Promise(() => undefined);
}

// --- Dovecot and the latency proxy ---------------------------------------------------------------
async function startDovecot() {
  const dir = mkdtempSync(join(tmpdir(), 'bench-dovecot-'));
  chmodSync(dir, 0o755);
  const port = await freePort();
  const id = (flag, name) => spawnSync('id', [flag, name]).stdout.toString().trim() || '65534';
  const nobody = id('-u', 'nobody');
  const nogroup = id('-g', 'nobody');
  const mailDir = join(dir, 'mail');
  for (const d of [mailDir, join(dir, 'run'), join(dir, 'state')]) mkdirSync(d, { recursive: true });
  chownSync(mailDir, Number(nobody), Number(nogroup));
  writeFileSync(join(dir, 'passwd'), users.map((u) => `${u}:{PLAIN}${PASSWORD}::::::\n`).join(''));
  const loginUser = spawnSync('id', ['-u', 'dovenull']).status === 0 ? 'dovenull' : 'nobody';
  const internalUser = spawnSync('id', ['-u', 'dovecot']).status === 0 ? 'dovecot' : 'nobody';
  const conf = join(dir, 'dovecot.conf');
  writeFileSync(
    conf,
    `base_dir = ${dir}/run
state_dir = ${dir}/state
instance_name = bench-dovecot-${port}
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
log_path = ${dir}/dovecot.log
info_log_path = /dev/null
default_login_user = ${loginUser}
default_internal_user = ${internalUser}
first_valid_uid = 1
mail_location = maildir:${mailDir}/%u
mailbox_idle_check_interval = 1 secs
default_client_limit = 20000
mail_max_userip_connections = 100
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${dir}/passwd
}
userdb {
  driver = static
  args = uid=${nobody} gid=${nogroup} home=${mailDir}/%u
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
  chroot =
  process_limit = 256
}
service imap {
  process_limit = ${N * 2 + 100}
}
service anvil {
  chroot =
}
service stats {
  unix_listener stats-writer {
    mode = 0666
  }
}
`,
  );
  const proc = spawn('/usr/sbin/dovecot', ['-F', '-c', conf], { stdio: 'ignore' });
  for (let i = 0; ; i++) {
    try {
      await append(port, users[0], null);
      break;
    } catch (err) {
      if (i > 100) throw err;
      await sleep(100);
    }
  }
  return {
    port,
    stop: async () => {
      proc.kill('SIGTERM');
      await sleep(1000);
      if (proc.exitCode === null) proc.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Appends `raw` to `user`'s INBOX (null: only logs in and out). */
async function append(port, user, raw) {
  const c = new ImapFlow({
    host: '127.0.0.1',
    port,
    secure: false,
    auth: { user, pass: PASSWORD },
    logger: false,
  });
  c.on('error', () => undefined);
  await c.connect();
  try {
    if (raw) await c.append('INBOX', Buffer.from(raw));
  } finally {
    await c.logout();
  }
}

/** A TCP proxy that delays every chunk by half the round trip, in each direction, in order. */
async function startLatencyProxy(targetPort, rttMs) {
  const sockets = new Set();
  const delayed = (src, dst) => {
    const queue = [];
    let timer = null;
    const flush = () => {
      timer = null;
      const now = Date.now();
      while (queue.length && queue[0][0] <= now) {
        const [, chunk] = queue.shift();
        if (chunk === null) dst.end();
        else dst.write(chunk);
      }
      if (queue.length) timer = setTimeout(flush, queue[0][0] - now);
    };
    const push = (chunk) => {
      queue.push([Date.now() + rttMs / 2, chunk]);
      timer ??= setTimeout(flush, rttMs / 2);
    };
    src.on('data', push);
    src.on('end', () => push(null));
  };
  const server = createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port: targetPort });
    sockets.add(client).add(upstream);
    delayed(client, upstream);
    delayed(upstream, client);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  const port = await freePort();
  await new Promise((r) => server.listen(port, '127.0.0.1', r));
  return {
    port,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((r) => server.close(r));
    },
  };
}

// --- measuring -----------------------------------------------------------------------------------
async function scrape(port) {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const out = new Map();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

/** CPU ms used by PostgreSQL backends of `dbName` while sampling (pids read from /proc). */
function pgCpuSampler(adminUrl, dbName) {
  const seen = new Map(); // pid -> [first, last]
  let stop = false;
  const loop = (async () => {
    while (!stop) {
      const pids = await withClient(adminUrl, (c) =>
        c.query('SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [dbName]),
      ).catch(() => ({ rows: [] }));
      for (const { pid } of pids.rows) {
        try {
          const now = cpuMs(pid);
          const s = seen.get(pid);
          if (s) s[1] = now;
          else seen.set(pid, [now, now]);
        } catch {
          /* gone, or another machine */
        }
      }
      await sleep(250);
    }
  })();
  return async () => {
    stop = true;
    await loop;
    let total = 0;
    for (const [first, last] of seen.values()) total += last - first;
    return total;
  };
}

function reply(send, benchId) {
  return [
    `From: ${send.contact}`,
    `To: ${send.inboxEmail}`,
    'Subject: Re: Hello',
    `Message-ID: <reply-${randomUUID()}@example.com>`,
    `In-Reply-To: ${send.messageId}`,
    `References: ${send.messageId}`,
    `X-Bench-Id: ${benchId}`,
    'Content-Type: text/plain; charset=utf-8',
    '',
    'Sounds good, call me on Thursday.',
    '',
  ].join('\r\n');
}

/** Appends one mail per item, spread evenly over `seconds`; resolves with each item's arrival time. */
async function appendSpread(port, items, seconds, raw) {
  const arrived = new Map();
  const t0 = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < items.length) {
        const i = next++;
        const due = t0 + (i * seconds * 1000) / items.length;
        if (due > Date.now()) await sleep(due - Date.now());
        await append(port, items[i].user, raw(items[i]));
        arrived.set(items[i].key, Date.now());
      }
    }),
  );
  return arrived;
}

async function waitUntil(probe, what, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

// --- the run -------------------------------------------------------------------------------------
if (!existsSync(join(root, 'dist/main.js'))) {
  log('building dist/ ...');
  execFileSync(process.execPath, [join(root, 'scripts/ensure-built.mjs')], { cwd: root, stdio: 'inherit' });
}
const { adminUrl, dbName, dbUrl, redisPrefix } = lib.scratch('mailboxes');
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const env = {
  ...process.env,
  DATABASE_URL: dbUrl,
  REDIS_URL: redisUrl,
  REDIS_PREFIX: redisPrefix,
  API_KEY_PEPPER: randomBytes(24).toString('base64url'),
  ENCRYPTION_KEY: randomBytes(32).toString('hex'),
  PUBLIC_URL: 'http://bench.local',
  LOG_LEVEL: 'warn',
  // The worker's /metrics is read without a token.
  METRICS_PUBLIC: 'true',
  NODE_OPTIONS: '',
};
Object.assign(process.env, env);
const admin = (sql) => withClient(adminUrl, (c) => c.query(sql));
const result = { benchmark: 'mailboxes', mailboxes: N, rtt_ms: RTT_MS, reply_spread_s: REPLY_SECONDS };
let dovecot;
let proxy;
let worker;
let raw;
try {
  log(`Dovecot with ${N} users, proxy adding ${RTT_MS} ms of round trip ...`);
  dovecot = await startDovecot();
  proxy = await startLatencyProxy(dovecot.port, RTT_MS);
  await admin(`CREATE DATABASE ${dbName}`);
  await lib.cli(env, 'migrate');
  const org = await lib.cli(env, 'org:create', '--name', 'Bench Agency');
  const ws = await lib.cli(env, 'workspace:create', '--org', org.id, '--name', 'Bench Workspace');
  const { sealSettings, hashInboundSecret } = await import(
    join(root, 'dist/modules/inboxes/inbox-credentials.js')
  );
  log('seeding inboxes, contacts, enrollments and sent messages ...');
  const { mailboxes, campaignId } = await withClient(dbUrl, async (c) => {
    const [seq] = (
      await c.query(
        `INSERT INTO sequences (workspace_id, name, status, steps, published_at)
         VALUES ($1, 'Seq', 'published', $2, now()) RETURNING id`,
        [
          ws.id,
          JSON.stringify([
            { position: 1, delay_minutes: 0, subject: 'Hello', body: 'Hi' },
            { position: 2, delay_minutes: 600, subject: null, body: 'Again' },
          ]),
        ],
      )
    ).rows;
    const out = [];
    const inboxIds = [];
    for (const user of users) {
      const id = randomUUID();
      const smtp = sealSettings(
        { host: '127.0.0.1', port: 9, secure: false, user: null, password: null },
        id,
        'smtp',
      );
      const imap = sealSettings(
        { host: '127.0.0.1', port: proxy.port, secure: false, user, password: PASSWORD },
        id,
        'imap',
      );
      await c.query(
        `INSERT INTO inboxes (id, workspace_id, email, domain, smtp_sealed, imap_sealed, inbound_secret_hash)
         VALUES ($1, $2, $3, 'bench.test', $4, $5, $6)`,
        [id, ws.id, `${user}@bench.test`, smtp, imap, hashInboundSecret(randomUUID())],
      );
      inboxIds.push(id);
      out.push({ user, inboxId: id, inboxEmail: `${user}@bench.test` });
    }
    const [campaign] = (
      await c.query(
        `INSERT INTO campaigns (workspace_id, name, sequence_id, status, inbox_ids, activated_at)
         VALUES ($1, 'Bench', $2, 'active', $3, now()) RETURNING id`,
        [ws.id, seq.id, inboxIds],
      )
    ).rows;
    return { mailboxes: out, campaignId: campaign.id };
  });
  /** Per mailbox: a new contact, its enrollment (not due) and the sent message a reply answers. */
  const seedSends = (tag) =>
    withClient(dbUrl, async (c) => {
      const out = mailboxes.map((m, i) => ({ ...m, contact: `${tag}-${i}@example.com` }));
      for (const s of out) {
        const {
          rows: [contact],
        } = await c.query('INSERT INTO contacts (workspace_id, email) VALUES ($1, $2) RETURNING id', [
          ws.id,
          s.contact,
        ]);
        const {
          rows: [enr],
        } = await c.query(
          `INSERT INTO enrollments (workspace_id, campaign_id, contact_id, status, current_step, next_step_at)
           VALUES ($1, $2, $3, 'active', 1, now() + interval '30 days') RETURNING id`,
          [ws.id, campaignId, contact.id],
        );
        const {
          rows: [thread],
        } = await c.query(
          `INSERT INTO threads (workspace_id, inbox_id, contact_id, enrollment_id, campaign_id, subject, message_count, last_message_at)
           VALUES ($1, $2, $3, $4, $5, 'Hello', 1, now()) RETURNING id`,
          [ws.id, s.inboxId, contact.id, enr.id, campaignId],
        );
        s.messageId = `<${randomUUID()}@bench.test>`;
        s.enrollmentId = Number(enr.id);
        s.key = String(enr.id);
        await c.query(
          `INSERT INTO messages (workspace_id, thread_id, enrollment_id, direction, kind, from_address, to_address,
             subject, body, message_id, status, sent_at, step_position)
           VALUES ($1, $2, $3, 'outbound', 'email', $4, $5, 'Hello', 'Hi', $6, 'sent', now(), 1)`,
          [ws.id, thread.id, enr.id, s.inboxEmail, s.contact, s.messageId],
        );
      }
      return out;
    });

  // 0. Before (optional): the previous poller, built from another checkout (BENCH_BEFORE_ROOT, e.g.
  // `git archive <commit> | tar -x -C /tmp/before && ln -s $PWD/node_modules /tmp/before && (cd
  // /tmp/before && npx nest build)`), same mailboxes, same proxy, default settings.
  if (process.env.BENCH_BEFORE_ROOT) {
    const beforeSends = await seedSends('before');
    const beforeIds = beforeSends.map((x) => x.enrollmentId);
    const port = await freePort();
    const old = await lib.startProcess({
      env: { ...env, APP_ROLE: 'worker', METRICS_PORT: String(port), PORT: '0' },
      script: join(process.env.BENCH_BEFORE_ROOT, 'dist/main.js'),
      ready: lib.httpOk(`http://127.0.0.1:${port}/health/live`),
      what: 'worker (before)',
    });
    try {
      log('before: the previous poller is running; appending replies ...');
      const pid = old.proc.pid;
      const c0 = cpuMs(pid);
      const b0 = Date.now();
      const arrivedBefore = await appendSpread(dovecot.port, beforeSends, REPLY_SECONDS, (x) =>
        reply(x, x.key),
      );
      const rows = await waitUntil(
        async () => {
          const { rows } = await withClient(dbUrl, (c) =>
            c.query(
              `SELECT enrollment_id, count(*)::int AS n, min(created_at) AS at FROM messages
               WHERE direction = 'inbound' AND enrollment_id = ANY($1) GROUP BY 1`,
              [beforeIds],
            ),
          );
          return rows.length >= N ? rows : null;
        },
        'the previous poller ingested every reply',
        30 * 60_000,
      );
      const lat = rows.map((r) => new Date(r.at).getTime() - arrivedBefore.get(String(r.enrollment_id)));
      const m = await scrape(port);
      const minutes = (Date.now() - b0) / 60_000;
      result.before = {
        replies: {
          appended: N,
          enrollments_with_a_reply: rows.length,
          recorded_more_than_once: rows.filter((r) => r.n > 1).length,
          p50_s: pct(lat, 50) / 1000,
          p99_s: pct(lat, 99) / 1000,
          max_s: Math.max(...lat) / 1000,
        },
        polls: {
          polled: m.get('outreach_imap_polls_total{outcome="polled"}'),
          failed: m.get('outreach_imap_polls_total{outcome="failed"}'),
          abandoned: m.get('outreach_imap_polls_total{outcome="abandoned"}'),
          logins_per_mailbox_per_hour:
            Math.round((m.get('outreach_imap_polls_total{outcome="polled"}') / N / minutes) * 60 * 10) / 10,
        },
        worker_cpu_percent: Math.round(((cpuMs(pid) - c0) / (Date.now() - b0)) * 1000) / 10,
        rss_mb: rssMb(pid),
      };
      log('before:', JSON.stringify(result.before));
    } finally {
      const at = Date.now();
      await lib.stopProcess(old.proc, 60_000);
      if (result.before) result.before.sigterm = { exit_code: old.proc.exitCode, ms: Date.now() - at };
    }
  }

  // 1. The service: one worker, default settings.
  const sends = await seedSends('after');
  const ids = sends.map((x) => x.enrollmentId);
  const metricsPort = await freePort();
  const started = Date.now();
  worker = await lib.startProcess({
    env: { ...env, APP_ROLE: 'worker', METRICS_PORT: String(metricsPort), PORT: '0' },
    script: 'dist/main.js',
    ready: lib.httpOk(`http://127.0.0.1:${metricsPort}/health/live`),
    what: 'worker',
  });
  log('worker ready; waiting for every mailbox to connect ...');
  await waitUntil(
    async () =>
      (await scrape(metricsPort).catch(() => new Map())).get('outreach_imap_mailboxes{state="idle"}') === N,
    'every mailbox connected',
    30 * 60_000,
  );
  result.service = { connect_all_s: Math.round((Date.now() - started) / 100) / 10 };
  log(`all ${N} connected after ${result.service.connect_all_s} s; idle window ${IDLE_SECONDS} s ...`);
  const pid = worker.proc.pid;
  let cpu0 = cpuMs(pid);
  await sleep(IDLE_SECONDS * 1000);
  const idleCpuMs = cpuMs(pid) - cpu0;
  result.service.idle = {
    cpu_percent: Math.round((idleCpuMs / (IDLE_SECONDS * 1000)) * 1000) / 10,
    cpu_percent_per_1000_mailboxes:
      Math.round(((idleCpuMs / (IDLE_SECONDS * 1000)) * 100 * 1000 * 10) / N) / 10,
    rss_mb: rssMb(pid),
  };
  log('idle:', JSON.stringify(result.service.idle), `; appending ${N} replies over ${REPLY_SECONDS} s ...`);
  const stat = () =>
    withClient(adminUrl, (c) =>
      c.query(
        'SELECT xact_commit, tup_inserted, tup_updated, tup_returned, tup_fetched FROM pg_stat_database WHERE datname = $1',
        [dbName],
      ),
    ).then((r) => r.rows[0]);
  const stat0 = await stat();
  const pgCpu = pgCpuSampler(adminUrl, dbName);
  cpu0 = cpuMs(pid);
  const t0 = Date.now();
  const arrived = await appendSpread(dovecot.port, sends, REPLY_SECONDS, (s) => reply(s, s.key));
  const ingested = await waitUntil(
    async () => {
      const { rows } = await withClient(dbUrl, (c) =>
        c.query(
          `SELECT enrollment_id, created_at FROM messages WHERE direction = 'inbound' AND enrollment_id = ANY($1)`,
          [ids],
        ),
      );
      return rows.length >= N ? rows : null;
    },
    'every reply ingested',
    20 * 60_000,
  );
  await sleep(3000);
  const phaseMs = Date.now() - t0;
  const workerCpu = cpuMs(pid) - cpu0 - (idleCpuMs / (IDLE_SECONDS * 1000)) * phaseMs;
  const pgCpuMs = await pgCpu();
  const stat1 = await stat();
  const { rows: all } = await withClient(dbUrl, (c) =>
    c.query(
      `SELECT enrollment_id, count(*)::int AS n, min(created_at) AS at FROM messages
       WHERE direction = 'inbound' AND enrollment_id = ANY($1) GROUP BY 1`,
      [ids],
    ),
  );
  const latencies = all.map((r) => new Date(r.at).getTime() - arrived.get(String(r.enrollment_id)));
  const m = await scrape(metricsPort);
  result.service.replies = {
    appended: N,
    ingested: ingested.length,
    enrollments_with_a_reply: all.length,
    recorded_more_than_once: all.filter((r) => r.n > 1).length,
    p50_s: pct(latencies, 50) / 1000,
    p99_s: pct(latencies, 99) / 1000,
    max_s: Math.max(...latencies) / 1000,
  };
  result.service.per_reply = {
    worker_cpu_ms: Math.round((workerCpu / N) * 100) / 100,
    postgres_cpu_ms: Math.round((pgCpuMs / N) * 100) / 100,
    postgres_transactions: Math.round(((stat1.xact_commit - stat0.xact_commit) / N) * 10) / 10,
    postgres_rows_written:
      Math.round(
        ((Number(stat1.tup_inserted) +
          Number(stat1.tup_updated) -
          Number(stat0.tup_inserted) -
          Number(stat0.tup_updated)) /
          N) *
          10,
      ) / 10,
  };
  const runHours = (Date.now() - started) / 3_600_000;
  result.service.logins = {
    ok: m.get('outreach_imap_logins_total{outcome="ok"}'),
    failed: m.get('outreach_imap_logins_total{outcome="failed"}'),
    per_mailbox_in_run: m.get('outreach_imap_logins_total{outcome="ok"}') / N,
    run_minutes: Math.round(runHours * 600) / 10,
    bound_per_mailbox_per_hour: 12,
    reads_failed: m.get('outreach_imap_polls_total{outcome="failed"}'),
    reads_abandoned: m.get('outreach_imap_polls_total{outcome="abandoned"}'),
  };
  result.service.rss_after_mb = rssMb(pid);
  log('service:', JSON.stringify(result.service));
  const stopAt = Date.now();
  await lib.stopProcess(worker.proc, 60_000);
  result.service.sigterm = { exit_code: worker.proc.exitCode, ms: Date.now() - stopAt };

  // 2. The raw imapflow loop, same mailboxes, same proxy, same opening concurrency.
  log('raw imapflow loop: connecting ...');
  const rawStarted = Date.now();
  raw = spawn(process.execPath, [join(root, 'bench/mailboxes.mjs'), '--raw', String(proxy.port)], {
    cwd: root,
    env: { ...env, BENCH_MAILBOXES: String(N) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const seen = new Map();
  let rawConnected = false;
  createInterface({ input: raw.stdout }).on('line', (line) => {
    const o = JSON.parse(line);
    if (o.connected) rawConnected = true;
    else if (o.id) seen.set(o.id, [...(seen.get(o.id) ?? []), o.at]);
  });
  await waitUntil(async () => rawConnected, 'the raw loop connected', 30 * 60_000);
  result.raw = { connect_all_s: Math.round((Date.now() - rawStarted) / 100) / 10 };
  cpu0 = cpuMs(raw.pid);
  await sleep(IDLE_SECONDS * 1000);
  const rawIdle = cpuMs(raw.pid) - cpu0;
  result.raw.idle = {
    cpu_percent: Math.round((rawIdle / (IDLE_SECONDS * 1000)) * 1000) / 10,
    cpu_percent_per_1000_mailboxes:
      Math.round(((rawIdle / (IDLE_SECONDS * 1000)) * 100 * 1000 * 10) / N) / 10,
    rss_mb: rssMb(raw.pid),
  };
  cpu0 = cpuMs(raw.pid);
  const r0 = Date.now();
  const rawItems = sends.map((s) => ({ ...s, key: `raw-${s.key}` }));
  const rawArrived = await appendSpread(dovecot.port, rawItems, REPLY_SECONDS, (s) =>
    reply({ ...s, messageId: '<not-ours@bench.test>' }, s.key),
  );
  await waitUntil(async () => seen.size >= N, 'the raw loop read every reply', 20 * 60_000);
  await sleep(3000);
  const rawCpu = cpuMs(raw.pid) - cpu0 - (rawIdle / (IDLE_SECONDS * 1000)) * (Date.now() - r0);
  const rawLat = [...seen.entries()].map(([id, ats]) => ats[0] - rawArrived.get(id));
  result.raw.replies = {
    read: seen.size,
    read_more_than_once: [...seen.values()].filter((a) => a.length > 1).length,
    p50_s: pct(rawLat, 50) / 1000,
    p99_s: pct(rawLat, 99) / 1000,
    max_s: Math.max(...rawLat) / 1000,
  };
  result.raw.per_reply = { cpu_ms: Math.round((rawCpu / N) * 100) / 100 };
  log('raw:', JSON.stringify(result.raw));
} finally {
  raw?.kill('SIGKILL');
  if (worker) await lib.stopProcess(worker.proc, 5000);
  await proxy?.close();
  await dovecot?.stop();
  await admin(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
  await lib.deleteRedisPrefix(redisUrl, redisPrefix).catch(() => undefined);
}
console.log(JSON.stringify(result));
process.exit(0);
