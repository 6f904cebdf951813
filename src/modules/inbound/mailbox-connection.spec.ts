import { randomUUID } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { Slots } from '../../common/worker/slots.js';
import type { AppConfig } from '../../config/app-config.js';
import type { Inbox } from '../inboxes/entities/inbox.entity.js';
import { sealSettings } from '../inboxes/inbox-credentials.js';
import { MailboxConnection, type ConnectionDeps } from './mailbox-connection.js';
import type { MailboxLeases } from './mailbox-leases.js';
import type { MailboxReader } from './mailbox-reader.js';

/**
 * The back-off between two connection attempts holds: the connection's `close` event (which every
 * failed attempt emits too) does not cut the wait short, only `stop()` does. Against a server that is
 * down, attempts come 0.5–1 s, 1–2 s, 2–4 s … apart, not back to back until the hour's login budget
 * is spent.
 */
describe('MailboxConnection back-off', () => {
  const sockets = new Set<Socket>();
  let server: Server;
  let port: number;
  let accepted: number;

  /** A server "restarting": it accepts and drops every connection before its greeting. */
  beforeAll(async () => {
    server = createServer((socket) => {
      accepted += 1;
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => (accepted = 0));

  function connection(): { conn: MailboxConnection; attempts: () => number; errors: string[] } {
    const id = randomUUID();
    const inbox = {
      id,
      imapSealed: sealSettings(
        { host: '127.0.0.1', port, secure: false, user: 'sam', password: 'pw' },
        id,
        'imap',
      ),
    } as Inbox;
    let allowances = 0;
    const errors: string[] = [];
    const deps: ConnectionDeps = {
      config: { imapLoginsPerHour: 12, imapPollDeadlineSeconds: 5, imapPollSeconds: 60 } as AppConfig,
      reader: { inbox: () => Promise.resolve(inbox) } as unknown as MailboxReader,
      // The budget is never the limit here: every attempt is allowed and counted.
      leases: {
        loginAllowance: () => {
          allowances += 1;
          return Promise.resolve(0);
        },
      } as unknown as MailboxLeases,
      openSlots: new Slots(4),
      readSlots: new Slots(4),
      holds: () => true,
      noteError: (_id, message) => {
        errors.push(message);
        return Promise.resolve();
      },
      clearError: () => Promise.resolve(),
      changed: () => undefined,
    };
    return { conn: new MailboxConnection(id, deps), attempts: () => allowances, errors };
  }

  const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

  it('waits its back-off between attempts against a server that drops every connection', async () => {
    const { conn, attempts } = connection();
    conn.start();
    await sleep(3400);
    const made = attempts();
    await conn.stop();
    // 0, then 0.5–1 s, then 1–2 s later (1.5–3 s), the next 2–4 s after that (past 3.4 s).
    expect(made).toBeGreaterThanOrEqual(2);
    expect(made).toBeLessThanOrEqual(3);
    expect(accepted).toBe(made);
  }, 10_000);

  it('a server refusing connections (nothing listening) is retried on the same back-off', async () => {
    const { conn, attempts } = connection();
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer();
      probe.listen(0, '127.0.0.1', () => {
        const p = (probe.address() as { port: number }).port;
        probe.close(() => resolve(p));
      });
    });
    // Point this connection at the closed port.
    const inner = conn as unknown as { deps: ConnectionDeps };
    const id = conn.inboxId;
    const inbox = {
      id,
      imapSealed: sealSettings(
        { host: '127.0.0.1', port: closed, secure: false, user: 's', password: 'p' },
        id,
        'imap',
      ),
    } as Inbox;
    inner.deps.reader = { inbox: () => Promise.resolve(inbox) } as unknown as MailboxReader;
    conn.start();
    await sleep(3400);
    const made = attempts();
    await conn.stop();
    expect(made).toBeGreaterThanOrEqual(2);
    expect(made).toBeLessThanOrEqual(3);
  }, 10_000);

  it('stop() ends a back-off wait at once', async () => {
    const { conn, attempts, errors } = connection();
    conn.start();
    // Three failures: the wait before the fourth attempt is 2–4 s.
    const deadline = Date.now() + 8000;
    while (attempts() < 3 && Date.now() < deadline) await sleep(20);
    expect(attempts()).toBe(3);
    await sleep(100);
    const asked = Date.now();
    await conn.stop();
    expect(Date.now() - asked).toBeLessThan(500);
    expect(conn.finished).toBe(true);
    // Three failures in a row show on the inbox.
    expect(errors.length).toBe(1);
    expect(errors[0]).toMatch(/^imap: /);
  }, 15_000);
});
