/**
 * Graceful shutdown of the built service (`node dist/main.js`), as an orchestrator does it: SIGTERM.
 *
 * - A worker stopped in the middle of sending, through a real SMTP server that is slow to accept
 *   (each message answered 1.5 s after its DATA): it finishes the conversations it had begun, gives
 *   back the rest of its claim and exits within 30 s. A second worker then sends the rest right away
 *   (the claim lease is 10 minutes: nothing waits for it), and no step goes out twice.
 * - An API process stopped with a request in flight: it stops accepting connections, the request
 *   is answered, and the process exits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFaultTenant } from '../helpers/faults-http.js';
import {
  ensureBuilt,
  freePort,
  sleep,
  startService,
  useProcesses,
  db,
  q,
  one,
} from '../helpers/processes.js';
import { startSmtpSink, type SmtpSink } from '../helpers/mail-servers.js';
import { seedCampaign } from '../helpers/seed.js';
import { waitFor } from '../helpers/wait.js';

const ENROLLMENTS = 40;
/** How long the SMTP server takes to accept each message. */
const ACCEPT_DELAY_MS = 1500;
/** The contract: out within 30 s of SIGTERM. */
const EXIT_WITHIN_MS = 30_000;

describe('graceful shutdown (SIGTERM)', () => {
  let sink: SmtpSink | undefined;
  useProcesses({ after: () => sink?.close() });

  it('a worker stopped mid-send finishes what it began, releases its claims and exits; another sends the rest at once, nothing twice', async () => {
    sink = await startSmtpSink({ dataEnd: () => ({ delayMs: ACCEPT_DELAY_MS }) });
    const smtp = sink;
    const t = await createFaultTenant(db);
    await q(
      `UPDATE workspaces SET config = config || '{"domain_daily_send_limit": 100000}'::jsonb WHERE id = $1`,
      [t.workspaceId],
    );
    const c = await seedCampaign(q, {
      workspaceId: t.workspaceId,
      smtpPort: smtp.port,
      inboxDailyLimit: 100_000,
      steps: [{ subject: 'Hello {{ email }}', body: 'One step for {{ email }}' }],
    });
    const env = {
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}:shutdown`,
      SEND_TICK_MS: '50',
      SEND_MIN_GAP_SECONDS: '0',
    };
    const first = await startService({ role: 'worker', env });
    await q(
      `WITH c AS (
         INSERT INTO contacts (workspace_id, email)
         SELECT $1, 'drain' || g || '@example.com' FROM generate_series(1, $2) g RETURNING id
       )
       INSERT INTO enrollments (workspace_id, campaign_id, contact_id, status, current_step, next_step_at)
       SELECT $1, $3, c.id, 'active', 0, now() - interval '1 second' FROM c`,
      [t.workspaceId, ENROLLMENTS, c.campaignId],
    );
    // Sends are in flight: the server has a message and holds its answer.
    await waitFor(async () => smtp.dataCount() >= 1, 'a message in SMTP', 60_000);
    const claimed = await one<{ n: number }>(
      `SELECT count(*)::int AS n FROM enrollments WHERE campaign_id = $1 AND next_step_at > now() + interval '60 seconds'`,
      [c.campaignId],
    );
    expect(claimed.n).toBeGreaterThan(1); // leased to the first worker for the 10-minute claim

    const signalled = Date.now();
    await first.kill('SIGTERM');
    const took = Date.now() - signalled;
    expect(took).toBeLessThan(EXIT_WITHIN_MS);
    expect(first.child.exitCode).toBe(0);
    expect(first.output()).toMatch(/"code":0,"msg":"shutdown complete"/);

    // What it began, it finished: every message the server received was accepted and finalised.
    const sentByFirst = smtp.received.length;
    expect(sentByFirst).toBeGreaterThan(0);
    expect(sentByFirst).toBeLessThan(ENROLLMENTS);
    expect(smtp.dataCount()).toBe(sentByFirst);
    const after = await one<{ completed: number; leased: number; sending: number; paused: number }>(
      `SELECT
         count(*) FILTER (WHERE e.status = 'completed')::int AS completed,
         count(*) FILTER (WHERE e.status = 'active' AND e.next_step_at > now())::int AS leased,
         count(*) FILTER (WHERE e.status = 'paused')::int AS paused,
         (SELECT count(*)::int FROM messages m WHERE m.workspace_id = $2 AND m.status = 'sending') AS sending
       FROM enrollments e WHERE e.campaign_id = $1`,
      [c.campaignId, t.workspaceId],
    );
    expect(after).toEqual({ completed: sentByFirst, leased: 0, sending: 0, paused: 0 });

    // A second worker sends the rest right away, far within the 600 s lease.
    // It serves its own counters on METRICS_PORT (a worker has no API listener).
    const metricsPort = await freePort();
    const restarted = Date.now();
    const second = await startService({
      role: 'worker',
      env: { ...env, METRICS_PORT: String(metricsPort), METRICS_TOKEN: 'worker-metrics-token' },
    });
    await waitFor(
      async () =>
        (
          await one<{ n: number }>(
            `SELECT count(*)::int AS n FROM enrollments WHERE campaign_id = $1 AND status = 'completed'`,
            [c.campaignId],
          )
        ).n === ENROLLMENTS,
      'every enrollment completed by the second worker',
      90_000,
    );
    expect(Date.now() - restarted).toBeLessThan(90_000);
    await sleep(500);
    const recipients = smtp.received.flatMap((m) => m.to);
    expect(recipients).toHaveLength(ENROLLMENTS);
    expect(new Set(recipients).size).toBe(ENROLLMENTS);
    const messages = await one<{ n: number; sent: number }>(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE status = 'sent')::int AS sent FROM messages WHERE workspace_id = $1`,
      [t.workspaceId],
    );
    expect(messages).toEqual({ n: ENROLLMENTS, sent: ENROLLMENTS });
    const metricsUrl = `http://127.0.0.1:${metricsPort}`;
    const denied = await fetch(`${metricsUrl}/metrics`);
    expect(denied.status).toBe(401);
    expect(await denied.json()).toEqual({
      error: {
        type: 'authentication_failed',
        message:
          "A valid metrics token is required: send the server's METRICS_TOKEN as Authorization: Bearer <token> (or start the server with METRICS_PUBLIC=true)",
      },
    });
    expect((await fetch(`${metricsUrl}/health/live`)).status).toBe(200);
    const scraped = await fetch(`${metricsUrl}/metrics`, {
      headers: { Authorization: 'Bearer worker-metrics-token' },
    });
    expect(scraped.status).toBe(200);
    const text = await scraped.text();
    expect(text).toContain(`outreach_sends_total{outcome="sent"} ${ENROLLMENTS - sentByFirst}\n`);
    const lag = /^outreach_due_enrollments_lag_seconds (\S+)$/m.exec(text);
    expect(Number(lag?.[1])).toBeLessThan(60); // nothing of ours is left due
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
    await second.kill('SIGTERM');
    expect(second.child.exitCode).toBe(0);
  }, 240_000);

  it('an API process stops accepting, answers the request in flight, then exits', async () => {
    const t = await createFaultTenant(db);
    const svc = await startService({ role: 'api' });
    const body = JSON.stringify({ email: 'in-flight@example.com', first_name: 'Flight' });
    const req = httpRequest(`${svc.url}/api/v1/contacts`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${t.token}`,
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(body),
      },
    });
    const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
      req.on('response', (res: IncomingMessage) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on('error', reject);
    });
    // Half the body: the request is in the service (authenticated, reading its body).
    req.write(body.slice(0, 10));
    await sleep(500);
    const signalled = Date.now();
    svc.child.kill('SIGTERM');
    await waitFor(async () => svc.output().includes('shutting down'), 'the drain to begin', 10_000);
    await sleep(200);
    // No new connection is accepted.
    await expect(fetch(`${svc.url}/health/live`)).rejects.toThrow();
    expect(svc.alive()).toBe(true); // still waiting for the request in flight
    req.end(body.slice(10));
    const res = await answered;
    expect(res.status).toBe(200); // POST /contacts is an upsert: 200
    expect(JSON.parse(res.text).data).toMatchObject({ email: 'in-flight@example.com' });
    await svc.exited();
    expect(Date.now() - signalled).toBeLessThan(EXIT_WITHIN_MS);
    expect(svc.child.exitCode).toBe(0);
    const row = await one<{ n: number }>(
      `SELECT count(*)::int AS n FROM contacts WHERE workspace_id = $1 AND email = 'in-flight@example.com'`,
      [t.workspaceId],
    );
    expect(row.n).toBe(1);
  }, 120_000);
});

/**
 * Ctrl-C in a terminal, as a newcomer does it after `npm start` on embedded defaults: SIGINT goes to
 * the whole foreground process group. The service runs here as the leader of its own group, and the
 * test signals the group. Embedded PostgreSQL and redis-server run in their own session and group, so
 * only the service gets the signal and stops them itself. The first Ctrl-C drains and exits 0; a
 * second one while it drains exits at once (130), quietly; nothing started under DATA_DIR is left.
 */
describe('Ctrl-C on embedded defaults (SIGINT to the process group)', () => {
  let dataDir: string;
  /** Every service this block started: whatever a failed test left running is killed in afterAll. */
  const children: ChildProcess[] = [];
  const NOISE = /terminating connection|Connection terminated|Error:|\n\s+at |ECONNREFUSED/;

  /**
   * Processes working under DATA_DIR: the embedded PostgreSQL (its processes' working directory is
   * the cluster's) and redis-server (`--dir`).
   */
  const leftUnder = (dir: string): string[] =>
    readdirSync('/proc')
      .filter((p) => /^\d+$/.test(p))
      .filter((p) => {
        try {
          return readlinkSync(`/proc/${p}/cwd`).startsWith(dir);
        } catch {
          return false;
        }
      })
      .map((p) => readFileSync(`/proc/${p}/cmdline`, 'utf8').replace(/\0/g, ' '));

  async function start(): Promise<{
    child: ChildProcess;
    port: number;
    output: () => string;
    exit: Promise<number | string>;
  }> {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      NODE_OPTIONS: '',
      LOG_LEVEL: 'info',
      IMAP_POLL_SECONDS: '3600',
    };
    for (const name of [
      'DATABASE_URL',
      'REDIS_URL',
      'API_KEY_PEPPER',
      'ENCRYPTION_KEY',
      'RUN_MIGRATIONS',
      'PUBLIC_URL',
    ]) {
      delete env[name];
    }
    const proc = spawn(process.execPath, ['dist/main.js'], {
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(proc);
    let out = '';
    proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const exit = new Promise<number | string>((resolve) =>
      proc.once('exit', (code, signal) => resolve(code ?? signal ?? 'none')),
    );
    await waitFor(
      async () => out.includes('listening on') || proc.exitCode !== null,
      'listening on',
      120_000,
    );
    if (proc.exitCode !== null) throw new Error(`the service exited: ${out}`);
    return { child: proc, port, output: () => out, exit };
  }
  const ctrlC = (proc: ChildProcess): void => {
    process.kill(-proc.pid!, 'SIGINT');
  };

  beforeAll(() => {
    ensureBuilt();
    dataDir = mkdtempSync(join(tmpdir(), 'ctrl-c-'));
    // mkdtemp makes it 0700; the embedded PostgreSQL runs as the postgres user, which must enter it.
    chmodSync(dataDir, 0o755);
  });
  afterAll(async () => {
    // SIGTERM, so a service left running stops its PostgreSQL and redis-server too; SIGKILL past 30 s.
    for (const c of children) {
      if (c.exitCode !== null || c.signalCode !== null) continue;
      const exited = new Promise((resolve) => c.once('exit', resolve));
      process.kill(-c.pid!, 'SIGTERM');
      const timer = setTimeout(() => process.kill(-c.pid!, 'SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('one Ctrl-C drains, stops PostgreSQL and Redis, and exits 0 without noise', async () => {
    const svc = await start();
    expect(leftUnder(dataDir).length).toBeGreaterThanOrEqual(2); // postgres (and its workers), redis-server
    const before = svc.output().length;
    ctrlC(svc.child);
    expect(await svc.exit).toBe(0);
    const after = svc.output().slice(before);
    expect(after).toMatch(/"msg":"shutdown complete"/);
    expect(after).not.toMatch(NOISE);
    expect(leftUnder(dataDir)).toEqual([]);
  }, 180_000);

  it('a second Ctrl-C while it drains exits at once with 130 and one line, nothing left running', async () => {
    const svc = await start();
    // A request in flight holds the drain: the unsubscribe form, half its body sent.
    const socket = connect(svc.port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.on('error', () => undefined);
    socket.write(
      'POST /u/abc HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\n' +
        'Content-Length: 100\r\n\r\nconfirm=',
    );
    await sleep(300);
    const before = svc.output().length;
    ctrlC(svc.child);
    await waitFor(
      async () => svc.output().includes('shutting down: draining'),
      'the drain to begin',
      10_000,
    ).catch((err: Error) => {
      throw new Error(`${err.message}: ${svc.output().slice(-3000)}`);
    });
    await sleep(1000);
    expect(svc.child.exitCode).toBeNull(); // still draining: the request holds it
    const second = Date.now();
    ctrlC(svc.child);
    expect(await svc.exit).toBe(130);
    expect(Date.now() - second).toBeLessThan(2000);
    socket.destroy();
    const after = svc.output().slice(before);
    expect(after).not.toMatch(NOISE);
    const lines = after.split('\n').filter((l) => l.trim());
    expect(lines.filter((l) => !/"level":30,/.test(l))).toEqual([
      expect.stringMatching(/"msg":"stopping at once"/),
    ]);
    // Told to stop as the process exited, they are gone within moments.
    await waitFor(async () => leftUnder(dataDir).length === 0, 'postgres and redis-server to end', 20_000);
  }, 180_000);
});
