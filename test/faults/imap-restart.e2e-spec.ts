/**
 * An IMAP server restart of a few seconds under a real worker process (`node dist/main.js`,
 * APP_ROLE=worker) holding 30 mailboxes on a real Dovecot: the back-off between attempts holds (the
 * close of the lost connection, and of each failed attempt, no longer ends it at once), so
 *
 * - no mailbox spends its hour's login budget (before: 50 mailboxes made 550 failed logins after a
 *   5-second restart, each spent its 12 in under half a second and waited for the next clock hour);
 * - every mailbox is connected and idling again, and every reply appended after the server's return
 *   is ingested exactly once, within two minutes of the return;
 * - the inbox problems the failures showed (`last_error`) are cleared once IMAP signs in again.
 */
import { Redis } from 'ioredis';
import pg from 'pg';
import type { DataSource } from 'typeorm';
import { createDataSource } from '../../src/database/data-source.js';
import { runMigrations } from '../../src/database/migrate.js';
import { createFaultTenant } from '../helpers/faults-http.js';
import { ensureBuilt, freePort, startService, stopAllServices, type Service } from '../helpers/processes.js';
import { startDovecot, type Dovecot } from '../helpers/mail-servers.js';
import { eachLimit, reply, seedFleet, seedSends } from '../helpers/mailbox-fleet.js';
import type { FleetMailbox } from '../helpers/mailbox-fleet.js';
import { waitFor } from '../helpers/wait.js';

const MAILBOXES = 30;
const DOWN_MS = 5000;
const LOGINS_PER_HOUR = 12;

/** This file's own database: a worker reads every active inbox it finds (see imap-workers). */
const RESTART_DB = `${process.env.TEST_DATABASE_NAME ?? 'outreach_test'}_imap_restart`;
const adminUrl = (): string =>
  process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
function dbUrl(): string {
  const url = new URL(adminUrl());
  url.pathname = `/${RESTART_DB}`;
  return url.toString();
}

/** A worker's /metrics as `name{labels}` → value. */
async function scrape(port: number): Promise<Map<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}
const idle = (m: Map<string, number>): number => m.get('outreach_imap_mailboxes{state="idle"}') ?? 0;
const logins = (m: Map<string, number>, outcome: string): number =>
  m.get(`outreach_imap_logins_total{outcome="${outcome}"}`) ?? 0;

describe('fault: an IMAP server restart of seconds (30 mailboxes, real worker, real Dovecot)', () => {
  let db: DataSource;
  let dovecot: Dovecot;
  let worker: Service | undefined;
  let workspaceId: string;
  let campaignId: number;
  let mailboxes: FleetMailbox[];
  const prefix = `${process.env.REDIS_PREFIX}:imap-restart`;

  beforeAll(async () => {
    ensureBuilt();
    await admin(`DROP DATABASE IF EXISTS ${RESTART_DB} WITH (FORCE)`);
    await admin(`CREATE DATABASE ${RESTART_DB}`);
    await runMigrations(dbUrl());
    db = createDataSource(dbUrl());
    await db.initialize();
    const users = Array.from({ length: MAILBOXES }, (_, i) => `r${String(i + 1).padStart(3, '0')}`);
    dovecot = await startDovecot({ extraUsers: users });
    const t = await createFaultTenant(db);
    workspaceId = t.workspaceId;
    const fleet = await seedFleet(db, {
      workspaceId,
      smtpPort: 9, // nothing is sent: the enrollments are not due
      imapPort: dovecot.port,
      users,
      password: dovecot.password,
    });
    campaignId = fleet.campaignId;
    mailboxes = fleet.mailboxes;
  }, 300_000);

  afterAll(async () => {
    await stopAllServices();
    await dovecot?.stop();
    await db?.destroy();
    await admin(`DROP DATABASE IF EXISTS ${RESTART_DB} WITH (FORCE)`);
  });

  it('no login budget spent, every mailbox back and every reply ingested once within two minutes of the return', async () => {
    const sends = await seedSends(db, workspaceId, campaignId, mailboxes, 'restart');
    const metricsPort = await freePort();
    worker = await startService({
      role: 'worker',
      env: {
        DATABASE_URL: dbUrl(),
        REDIS_PREFIX: prefix,
        IMAP_POLL_CONCURRENCY: '16',
        IMAP_POLL_SECONDS: '60',
        IMAP_LOGINS_PER_HOUR: String(LOGINS_PER_HOUR),
        METRICS_PORT: String(metricsPort),
        METRICS_PUBLIC: 'true',
        SEND_TICK_MS: '60000',
      },
    });
    const w = worker;
    const explain = async <T>(fn: () => Promise<T>): Promise<T> => {
      try {
        return await fn();
      } catch (err) {
        throw new Error(`${err instanceof Error ? err.message : String(err)}\n${w.problems(30)}`, {
          cause: err,
        });
      }
    };
    await explain(() =>
      waitFor(async () => idle(await scrape(metricsPort)) === MAILBOXES, 'every mailbox idling', 120_000),
    );
    const before = await scrape(metricsPort);
    expect(logins(before, 'ok')).toBe(MAILBOXES);

    const { upAt } = await dovecot.restart(DOWN_MS);
    await eachLimit(sends, 8, (s) => dovecot.appendTo(s.mailbox.user, reply(s)));
    const inbound = async (): Promise<number> => {
      const [row] = (await db.query(
        `SELECT count(*)::int AS n FROM messages WHERE enrollment_id = ANY($1) AND direction = 'inbound'`,
        [sends.map((s) => s.enrollmentId)],
      )) as Array<{ n: number }>;
      return row.n;
    };
    await explain(() =>
      waitFor(
        async () => idle(await scrape(metricsPort)) === MAILBOXES && (await inbound()) >= MAILBOXES,
        'every mailbox idling again and every reply ingested',
        150_000,
      ),
    );
    const backAfterMs = Date.now() - upAt;
    const after = await scrape(metricsPort);
    const failed = logins(after, 'failed') - logins(before, 'failed');
    const relogins = logins(after, 'ok') - logins(before, 'ok');
    console.log(
      `imap restart (${DOWN_MS} ms down, ${MAILBOXES} mailboxes): back ${backAfterMs} ms after the return, ` +
        `${failed} failed logins, ${relogins} successful`,
    );
    expect(backAfterMs).toBeLessThan(120_000);
    // One login again per mailbox, and a few failed attempts each at most (the back-off held: 0.5–1 s,
    // 1–2 s, 2–4 s … apart; measured 84 for 30 mailboxes, about 7 s without a server, back 7.8 s
    // after the return). Before, each mailbox spent its 12 in under half a second.
    expect(relogins).toBe(MAILBOXES);
    expect(failed).toBeLessThanOrEqual(4 * MAILBOXES);
    // No mailbox came near its hour's budget (counted in Redis across workers, per clock hour).
    const redis = new Redis(process.env.REDIS_URL!);
    try {
      const keys = await redis.keys(`${prefix}:imap:logins:*`);
      const counts = (keys.length ? await redis.mget(...keys) : []).map(Number);
      expect(counts.length).toBeGreaterThanOrEqual(MAILBOXES);
      expect(Math.max(...counts)).toBeLessThan(LOGINS_PER_HOUR / 2);
    } finally {
      redis.disconnect();
    }
    expect(w.output()).not.toContain('login budget of the hour spent');

    // Exactly once: settle a little longer, in case anything were read twice.
    await new Promise((r) => setTimeout(r, 3000));
    const [recorded] = (await db.query(
      `SELECT (SELECT count(*)::int FROM messages WHERE enrollment_id = ANY($1) AND direction = 'inbound') AS inbound,
              (SELECT count(DISTINCT enrollment_id)::int FROM messages WHERE enrollment_id = ANY($1) AND direction = 'inbound') AS enrollments,
              (SELECT count(*)::int FROM events WHERE workspace_id = $2 AND type = 'email.replied'
                 AND (data->>'enrollment_id')::bigint = ANY($1)) AS replied`,
      [sends.map((s) => s.enrollmentId), workspaceId],
    )) as Array<{ inbound: number; enrollments: number; replied: number }>;
    expect(recorded).toEqual({ inbound: MAILBOXES, enrollments: MAILBOXES, replied: MAILBOXES });
    // Whatever the failures showed on the inboxes was cleared when IMAP signed in again.
    const [errors] = (await db.query(
      'SELECT count(*)::int AS n FROM inboxes WHERE workspace_id = $1 AND last_error IS NOT NULL',
      [workspaceId],
    )) as Array<{ n: number }>;
    expect(errors.n).toBe(0);
    await w.stop();
    expect(w.child.exitCode).toBe(0);
  }, 400_000);
});
