/**
 * The worker's IMAP connections (docs/mailboxes.md): one long-lived connection per mailbox this worker
 * holds the lease of, new mail learned by IDLE (NOOP where the server has no IDLE) and read at least
 * every IMAP_POLL_SECONDS.
 *
 * Each pass (the `imap-mailboxes` loop, every min(IMAP_POLL_SECONDS, IMAP_LEASE_SECONDS / 3)):
 * 1. heartbeat: renews this worker's membership and learns the live workers;
 * 2. lists the inboxes with IMAP settings, and keeps those whose rendezvous owner is this worker;
 * 3. renews or takes their leases (a lease another worker still holds is left alone: that worker gives
 *    it back at its own next pass, or it lapses);
 * 4. starts a connection for each mailbox newly held, stops (then gives back) those no longer ours.
 *
 * A lease is trusted until a lease period after its last successful renewal (less a margin): when
 * Redis cannot be reached for that long, this worker stops reading, since another may take over.
 * No database connection is held while IMAP I/O runs (the lock is the Redis lease).
 *
 * Shutdown (SIGTERM): draining stops every connection after the mail being settled, logs out, gives
 * the leases back and leaves the membership, so the other workers take over at their next pass.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Inject, Injectable, type OnApplicationShutdown, type OnModuleDestroy } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { Draining } from '../../common/lifecycle/draining.js';
import { logger } from '../../common/logging/logger.js';
import { setImapMailboxes } from '../../common/metrics/metrics.js';
import { REDIS } from '../../common/redis/redis.module.js';
import { Slots } from '../../common/worker/slots.js';
import { appConfig, type AppConfig } from '../../config/app-config.js';
import { InboxStateRepository } from '../inboxes/inbox-state.repository.js';
import { InboundRepository } from './inbound.repository.js';
import { MailboxConnection, type ConnectionDeps } from './mailbox-connection.js';
import { MailboxLeases, ownerOf } from './mailbox-leases.js';
import { MailboxReader } from './mailbox-reader.js';

@Injectable()
export class ImapConnections implements OnModuleDestroy, OnApplicationShutdown {
  private readonly connections = new Map<string, MailboxConnection>();
  /** Mailboxes being stopped: their leases are given back once their connection has closed. */
  private readonly stopping = new Map<string, Promise<void>>();
  private leases: MailboxLeases | undefined;
  private deps: ConnectionDeps | undefined;
  /** Leases are trusted until then (ms since the epoch, this process's clock). */
  private leasedUntil = 0;
  private held = new Set<string>();
  /** The inboxes with IMAP settings, as last listed. */
  private inboxIds: string[] = [];
  private shutDown: Promise<void> | undefined;
  /** Its own Redis connection (no auto-pipelining): lease scripts are not on any request's path. */
  private client: Redis | undefined;

  constructor(
    private readonly inbound: InboundRepository,
    private readonly inboxes: InboxStateRepository,
    private readonly reader: MailboxReader,
    private readonly draining: Draining,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  /** How often `pass` runs: a third of the lease, and at least once per IMAP_POLL_SECONDS. */
  static intervalMs(config: AppConfig): number {
    return Math.min(config.imapPollSeconds * 1000, (config.imapLeaseSeconds * 1000) / 3);
  }

  /** This worker's id in the membership (host, pid and a random part: unique per process start). */
  get workerId(): string {
    return this.setUp().leases.workerId;
  }

  private setUp(): { leases: MailboxLeases; deps: ConnectionDeps } {
    if (!this.leases || !this.deps) {
      const config = appConfig();
      const id = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
      this.client = this.redis.duplicate({ enableAutoPipelining: false, enableOfflineQueue: true });
      this.client.on('error', () => undefined);
      this.leases = new MailboxLeases(this.client, config.redisPrefix, id, config.imapLeaseSeconds * 1000);
      this.deps = {
        config,
        reader: this.reader,
        leases: this.leases,
        openSlots: new Slots(config.imapPollConcurrency),
        readSlots: new Slots(config.imapSyncConcurrency),
        holds: (inboxId) => this.holds(inboxId),
        noteError: (inboxId, message) =>
          this.inboxes
            .noteErrorAcrossWorkspaces(inboxId, message)
            .catch((err: unknown) =>
              logger.warn(
                { inboxId, err: err instanceof Error ? err.message : String(err) },
                'imap: last_error not saved',
              ),
            ),
        clearError: (inboxId) =>
          this.inboxes
            .clearImapErrorAcrossWorkspaces(inboxId)
            .catch((err: unknown) =>
              logger.warn(
                { inboxId, err: err instanceof Error ? err.message : String(err) },
                'imap: last_error not cleared',
              ),
            ),
        changed: () => this.publish(),
      };
      this.draining.onBegin(() => void this.stopAll());
    }
    return { leases: this.leases, deps: this.deps };
  }

  private holds(inboxId: string): boolean {
    return !this.draining.active && this.held.has(inboxId) && Date.now() < this.leasedUntil;
  }

  /** One pass of the `imap-mailboxes` loop (see the file's comment). */
  async pass(): Promise<void> {
    const { leases, deps } = this.setUp();
    if (this.draining.active) return;
    const config = deps.config;
    const started = Date.now();
    let workers: string[];
    try {
      workers = await leases.heartbeat();
    } catch (err) {
      this.lapseIfStale();
      throw err;
    }
    // The database away: the leases are still renewed from the last list (reads wait for it anyway).
    const all = await this.inbound.inboxIdsToPollAcrossWorkspaces().then(
      (ids) => (this.inboxIds = ids),
      (err: unknown) => {
        logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'imap: inboxes not listed');
        return this.inboxIds;
      },
    );
    const mine = all.filter((id) => ownerOf(id, workers) === leases.workerId && !this.stopping.has(id));
    let held: Set<string>;
    try {
      held = await leases.acquire(mine);
    } catch (err) {
      this.lapseIfStale();
      throw err;
    }
    if (this.draining.active) return;
    // Trusted for a lease period from before the renewal, less a margin for clock drift and delays.
    this.leasedUntil = started + config.imapLeaseSeconds * 1000 * 0.8;
    this.held = held;
    for (const [id] of this.connections) if (!held.has(id)) void this.stopOne(id);
    for (const id of held) {
      // A connection that ended on its own (its lease was not fresh for a moment) is started again.
      if (this.connections.get(id)?.finished === false) continue;
      const conn = new MailboxConnection(id, deps);
      this.connections.set(id, conn);
      conn.start();
    }
    this.publish();
  }

  /** Redis unreachable: past the trusted time, stop reading (another worker may take over). */
  private lapseIfStale(): void {
    if (Date.now() < this.leasedUntil) return;
    if (this.connections.size)
      logger.warn({ mailboxes: this.connections.size }, 'imap: leases not renewed; stopping');
    for (const [id] of this.connections) void this.stopOne(id, false);
    this.held.clear();
  }

  /** Stops one mailbox's connection, then gives its lease back (unless it lapsed anyway). */
  private stopOne(inboxId: string, release = true): Promise<void> {
    const conn = this.connections.get(inboxId);
    this.connections.delete(inboxId);
    this.held.delete(inboxId);
    if (!conn) return this.stopping.get(inboxId) ?? Promise.resolve();
    const done = conn
      .stop()
      .then(() => (release ? this.leases?.release([inboxId]) : undefined))
      .catch((err: unknown) =>
        logger.warn(
          { inboxId, err: err instanceof Error ? err.message : String(err) },
          'imap: lease not given back',
        ),
      )
      .finally(() => {
        this.stopping.delete(inboxId);
        this.publish();
      });
    this.stopping.set(inboxId, done);
    return done;
  }

  /** Stops every connection, gives the leases back and leaves the membership (idempotent). */
  stopAll(): Promise<void> {
    this.shutDown ??= (async () => {
      if (!this.leases) return;
      for (const [id] of this.connections) void this.stopOne(id);
      await Promise.all([...this.stopping.values()]);
      await this.leases.leave().catch(() => undefined);
      logger.info('imap: mailboxes handed back');
    })();
    return this.shutDown;
  }

  async onModuleDestroy(): Promise<void> {
    await this.stopAll();
  }

  onApplicationShutdown(): void {
    this.client?.disconnect();
  }

  /** Mailboxes connected now, by mode (metrics). */
  counts(): { idle: number; poll: number; leased: number } {
    let idle = 0;
    let poll = 0;
    for (const c of this.connections.values()) {
      if (c.mode === 'idle') idle += 1;
      else if (c.mode === 'poll') poll += 1;
    }
    return { idle, poll, leased: this.connections.size };
  }

  private publish(): void {
    setImapMailboxes(this.counts());
  }
}
