/**
 * One mailbox's long-lived IMAP connection, held by the worker that holds the mailbox's lease:
 *
 * open (connect, login, SELECT INBOX read-only) → read → wait → read → … until stopped, where a read
 * is `MailboxReader.read` and the wait ends at the first of: new mail announced by the server (IDLE,
 * which imapflow enters a second after the last command; servers without IDLE are sent a NOOP
 * instead), IMAP_POLL_SECONDS (a read at least that often, IDLE or not), the connection closing, or
 * `stop()`.
 *
 * Failures: a lost or failed connection is opened again after a back-off (1 s doubling up to 5 min,
 * each wait drawn between half and all of it), and never more than IMAP_LOGINS_PER_HOUR times per
 * clock hour (counted across workers); a read that fails transiently on the database side keeps the
 * connection and is tried again after IMAP_POLL_SECONDS. Opening a connection, and each step of a read
 * (before the first mail, between two mails), may take IMAP_POLL_DEADLINE_SECONDS before the
 * connection is closed. Three failures in a row show on the
 * inbox (`last_error`); the next successful login clears it. Only `stop()` ends a back-off early: a
 * close (of the lost connection, of a failed attempt) wakes only the open session's waits.
 */
import { ImapFlow } from 'imapflow';
import { logger } from '../../common/logging/logger.js';
import { countImapLogin, countImapPoll } from '../../common/metrics/metrics.js';
import type { Slots } from '../../common/worker/slots.js';
import type { AppConfig } from '../../config/app-config.js';
import { imapConnectionOptions } from './imap-connection-options.js';
import type { MailboxLeases } from './mailbox-leases.js';
import { RetryLater, type MailboxReader } from './mailbox-reader.js';

/** Consecutive failures before the inbox's `last_error` shows it (a blip is only logged). */
export const IMAP_FAILURES_BEFORE_ERROR = 3;
const BACKOFF_BASE_MS = 1000;
const BACKOFF_MAX_MS = 5 * 60_000;

export type ConnectionMode = 'idle' | 'poll';

export interface ConnectionDeps {
  config: AppConfig;
  reader: MailboxReader;
  leases: MailboxLeases;
  /** Connections being opened at once (IMAP_POLL_CONCURRENCY). */
  openSlots: Slots;
  /** Reads at once (IMAP_SYNC_CONCURRENCY). */
  readSlots: Slots;
  /** True while this worker may read the mailbox (lease held and not lapsed, not draining). */
  holds: (inboxId: string) => boolean;
  /** Shows a problem on the inbox. */
  noteError: (inboxId: string, message: string) => Promise<void>;
  /** Clears the problem `noteError` showed (the connection signed in again). */
  clearError: (inboxId: string) => Promise<void>;
  /** The connection's state changed (metrics). */
  changed: () => void;
}

/** Raised when a step runs past IMAP_POLL_DEADLINE_SECONDS. */
class DeadlinePassed extends Error {}

export class MailboxConnection {
  private stopping = false;
  private client: ImapFlow | undefined;
  private wakeUp: (() => void) | null = null;
  private pendingWake = false;
  private failures = 0;
  private done: Promise<void> | undefined;
  /** The connection has ended for good (stopped, lease no longer fresh, inbox gone): start a new one. */
  finished = false;
  /** 'idle' or 'poll' once connected, null otherwise. */
  mode: ConnectionMode | null = null;

  constructor(
    readonly inboxId: string,
    private readonly deps: ConnectionDeps,
  ) {}

  start(): void {
    this.done ??= this.run()
      .catch((err: unknown) =>
        logger.error({ inboxId: this.inboxId, err: errorText(err) }, 'imap: mailbox connection ended'),
      )
      .finally(() => {
        this.finished = true;
      });
  }

  /** Stops reading (after the mail being settled), logs out, resolves once the connection is closed. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.done;
  }

  /**
   * Ends the current wait: `stop()`, or new mail or a close on the open session's connection. A wake
   * that finds no wait is kept for the next one of the session; the back-off and the login budget's
   * waits drop it, so only `stop()` ends those early.
   */
  private wake(): void {
    const w = this.wakeUp;
    this.wakeUp = null;
    if (w) w();
    else this.pendingWake = true;
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopping) return Promise.resolve();
    if (this.pendingWake) {
      this.pendingWake = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wakeUp = null;
        resolve();
      }, ms);
      timer.unref();
      this.wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private active(): boolean {
    return !this.stopping && this.deps.holds(this.inboxId);
  }

  private async run(): Promise<void> {
    while (this.active()) {
      const wait = await this.deps.leases
        .loginAllowance(this.inboxId, this.deps.config.imapLoginsPerHour)
        .catch(() => BACKOFF_BASE_MS);
      if (wait > 0) {
        if (wait > BACKOFF_BASE_MS) {
          logger.warn(
            { inboxId: this.inboxId, waitMs: wait },
            'imap: login budget of the hour spent; waiting',
          );
        }
        await this.holdOff(wait + Math.floor(Math.random() * 5000));
        continue;
      }
      try {
        const client = await this.deps.openSlots.run(() =>
          this.active() ? this.open() : Promise.resolve(null),
        );
        if (!client) break;
        countImapLogin('ok');
        await this.session(client);
        if (this.active()) await this.failed(new Error('the server closed the connection'));
      } catch (err) {
        if (!this.client) countImapLogin('failed');
        await this.failed(err);
      } finally {
        await this.close();
      }
      if (!this.active()) break;
      const backoff = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, this.failures - 1));
      await this.holdOff(backoff / 2 + Math.random() * (backoff / 2));
    }
  }

  /**
   * A wait between connections (back-off, login budget) that only `stop()` ends early. The close of
   * the connection just lost, and of every failed attempt, used to end it at once: a server restart
   * then spent the hour's login budget in under a second and stopped the mailbox until the hour turned.
   */
  private holdOff(ms: number): Promise<void> {
    this.pendingWake = false;
    return this.sleep(ms);
  }

  /** Connects, logs in and selects INBOX read-only, within the deadline. */
  private async open(): Promise<ImapFlow> {
    const inbox = await this.deps.reader.inbox(this.inboxId);
    if (!inbox) throw new Error('the inbox is gone or has no IMAP settings');
    const openMs = this.deps.config.imapPollDeadlineSeconds * 1000;
    const client = new ImapFlow(await imapConnectionOptions(inbox, { openMs }));
    client.on('error', (err: Error) =>
      logger.warn({ inboxId: this.inboxId, err: err.message }, 'imap: connection error'),
    );
    // Only the open session's connection wakes a wait: an attempt that failed (or a session already
    // closed) closes its client too, and that close must not end the back-off that follows.
    client.on('exists', () => {
      if (this.client === client) this.wake();
    });
    client.on('close', () => {
      if (this.client === client) this.wake();
    });
    const opening = (async () => {
      await client.connect();
      await client.mailboxOpen('INBOX', { readOnly: true });
    })();
    try {
      await this.withDeadline(opening, openMs, () => client.close());
    } catch (err) {
      client.close();
      throw err;
    }
    this.client = client;
    this.mode = client.capabilities.has('IDLE') ? 'idle' : 'poll';
    this.deps.changed();
    // Signed in again: what the failures before showed on the inbox is over.
    await this.deps.clearError(this.inboxId);
    return client;
  }

  /** Reads, waits, reads … while the connection is usable and the mailbox is ours. */
  private async session(client: ImapFlow): Promise<void> {
    const pollMs = this.deps.config.imapPollSeconds * 1000;
    while (this.active() && client.usable) {
      let more = false;
      try {
        more = await this.deps.readSlots.run(() => this.readOnce(client));
        this.succeeded();
      } catch (err) {
        if (!(err instanceof RetryLater)) throw err;
        await this.failed(err);
      }
      if (!more) await this.sleep(pollMs);
    }
  }

  private async readOnce(client: ImapFlow): Promise<boolean> {
    if (!this.active() || !client.usable) return false;
    const inbox = await this.deps.reader.inbox(this.inboxId);
    if (!inbox) {
      this.stopping = true;
      return false;
    }
    // The deadline bounds a read that stops making progress (a hung server), not a long one: it is
    // re-armed before each mail, so a backlog of 200 mails far away is read in one go.
    const deadlineMs = this.deps.config.imapPollDeadlineSeconds * 1000;
    let overdue = false;
    let timer: NodeJS.Timeout | undefined;
    let expired: (err: Error) => void = () => undefined;
    const deadline = new Promise<never>((_, reject) => (expired = reject));
    const arm = (): void => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        overdue = true;
        client.close();
        expired(new DeadlinePassed(`no answer within ${deadlineMs / 1000} s`));
      }, deadlineMs);
    };
    arm();
    const reading = this.deps.reader.read(client, inbox, () => {
      if (overdue || !this.active()) return false;
      arm();
      return true;
    });
    try {
      const outcome = await Promise.race([reading, deadline]);
      countImapPoll('polled');
      return outcome.more;
    } catch (err) {
      if (err instanceof DeadlinePassed) {
        countImapPoll('abandoned');
        // The read stops at its next step; the connection is closed, so it cannot go on reading.
        void reading.catch(() => undefined);
      } else countImapPoll('failed');
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  private async withDeadline<T>(work: Promise<T>, ms: number, onDeadline: () => void): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        onDeadline();
        reject(new DeadlinePassed(`no answer within ${ms / 1000} s`));
      }, ms);
    });
    try {
      return await Promise.race([work, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Logs out (waiting at most a second for the server's answer) and closes the connection. */
  private async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (this.mode) {
      this.mode = null;
      this.deps.changed();
    }
    if (!client) return;
    if (client.usable) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        client.logout().catch(() => undefined),
        new Promise((resolve) => (timer = setTimeout(resolve, 1000))),
      ]);
      clearTimeout(timer);
    }
    client.close();
  }

  private succeeded(): void {
    if (this.failures > 0) this.failures = 0;
  }

  private async failed(err: unknown): Promise<void> {
    if (this.stopping) return;
    this.failures += 1;
    const message = errorText(err);
    logger.warn(
      { inboxId: this.inboxId, err: message, failures: this.failures },
      'imap: mailbox read failed',
    );
    if (this.failures >= IMAP_FAILURES_BEFORE_ERROR) {
      await this.deps.noteError(this.inboxId, `imap: ${message.slice(0, 300)}`);
    }
  }
}

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));
