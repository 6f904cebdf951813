/**
 * A worker's share of a fleet of mailboxes (docs/mailboxes.md): the part IMAP reading
 * (`ImapConnections`) and provider-API reading (`ApiMailboxes`) have in common. What differs is how a
 * fleet lists its inboxes and what runs for each one it holds (an IMAP connection, an API reader loop).
 *
 * Each pass: heartbeat (renews this worker's membership and learns the live workers), list the fleet's
 * inboxes, keep those whose rendezvous owner is this worker, renew or take their leases (a lease another
 * worker still holds is left alone: that worker gives it back at its own next pass, or it lapses), start
 * a loop for each mailbox newly held, stop (then give back) those no longer ours.
 *
 * A lease is trusted until a lease period after its last successful renewal (less a margin): when Redis
 * cannot be reached for that long, this worker stops reading, since another may take over. Shutdown
 * (draining) stops every loop after the mail being settled, gives the leases back and leaves the
 * membership, so the other workers take over at their next pass.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { OnApplicationShutdown, OnModuleDestroy } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { Draining } from '../../common/lifecycle/draining.js';
import { logger } from '../../common/logging/logger.js';
import { appConfig, type AppConfig } from '../../config/app-config.js';
import { MailboxLeases, ownerOf } from './mailbox-leases.js';

/** What runs for one held mailbox until stopped (or until it ends on its own: `finished`). */
export interface MailboxLoop {
  readonly finished: boolean;
  start(): void;
  stop(): Promise<void>;
}

export const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export abstract class MailboxFleet<L extends MailboxLoop> implements OnModuleDestroy, OnApplicationShutdown {
  /** The loops of the mailboxes this worker holds. */
  protected readonly loops = new Map<string, L>();
  /** Mailboxes being stopped: their leases are given back once their loop has ended. */
  private readonly stopping = new Map<string, Promise<void>>();
  private leasesOf: MailboxLeases | undefined;
  /** The configuration read when the fleet was first used. */
  protected config!: AppConfig;
  /** Leases are trusted until then (ms since the epoch, this process's clock). */
  private leasedUntil = 0;
  private held = new Set<string>();
  /** The fleet's inboxes, as last listed. */
  private inboxIds: string[] = [];
  private shutDown: Promise<void> | undefined;
  /** Its own Redis connection (no auto-pipelining): lease scripts are not on any request's path. */
  private client: Redis | undefined;

  protected constructor(
    /** The fleet's name: its Redis keys (`<prefix>:<fleet>:…`) and its log lines' prefix. */
    private readonly fleet: 'imap' | 'api',
    private readonly draining: Draining,
    private readonly redis: Redis,
  ) {}

  /** Every inbox of the fleet, in any workspace. */
  protected abstract listInboxIds(): Promise<string[]>;
  /** The loop for one mailbox newly held (not started yet). */
  protected abstract newLoop(inboxId: string): L;
  /** Called when the set of loops may have changed (metrics). */
  protected changed(): void {}

  /** This worker's id in the membership (host, pid and a random part: unique per process start). */
  get workerId(): string {
    return this.leases().workerId;
  }

  protected leases(): MailboxLeases {
    if (!this.leasesOf) {
      this.config = appConfig();
      const id = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
      this.client = this.redis.duplicate({ enableAutoPipelining: false, enableOfflineQueue: true });
      this.client.on('error', () => undefined);
      this.leasesOf = new MailboxLeases(
        this.client,
        this.config.redisPrefix,
        id,
        this.config.imapLeaseSeconds * 1000,
        this.fleet,
      );
      this.draining.onBegin(() => void this.stopAll());
    }
    return this.leasesOf;
  }

  /** True while this worker holds `inboxId`'s lease and may read it. */
  holds(inboxId: string): boolean {
    return !this.draining.active && this.held.has(inboxId) && Date.now() < this.leasedUntil;
  }

  /** One pass of the fleet's loop (see the file's comment). */
  async pass(): Promise<void> {
    const leases = this.leases();
    if (this.draining.active) return;
    const started = Date.now();
    let workers: string[];
    try {
      workers = await leases.heartbeat();
    } catch (err) {
      this.lapseIfStale();
      throw err;
    }
    // The database away: the leases are still renewed from the last list (reads wait for it anyway).
    const all = await this.listInboxIds().then(
      (ids) => (this.inboxIds = ids),
      (err: unknown) => {
        logger.warn({ err: errorText(err) }, `${this.fleet}: inboxes not listed`);
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
    this.leasedUntil = started + this.config.imapLeaseSeconds * 1000 * 0.8;
    this.held = held;
    for (const [id] of this.loops) if (!held.has(id)) void this.stopOne(id);
    for (const id of held) {
      // A loop that ended on its own (its lease was not fresh for a moment) is started again.
      if (this.loops.get(id)?.finished === false) continue;
      const loop = this.newLoop(id);
      this.loops.set(id, loop);
      loop.start();
    }
    this.changed();
  }

  /** Redis unreachable: past the trusted time, stop reading (another worker may take over). */
  private lapseIfStale(): void {
    if (Date.now() < this.leasedUntil) return;
    if (this.loops.size)
      logger.warn({ mailboxes: this.loops.size }, `${this.fleet}: leases not renewed; stopping`);
    for (const [id] of this.loops) void this.stopOne(id, false);
    this.held.clear();
  }

  /** Stops one mailbox's loop, then gives its lease back (unless it lapsed anyway). */
  private stopOne(inboxId: string, release = true): Promise<void> {
    const loop = this.loops.get(inboxId);
    this.loops.delete(inboxId);
    this.held.delete(inboxId);
    if (!loop) return this.stopping.get(inboxId) ?? Promise.resolve();
    const done = loop
      .stop()
      .then(() => (release ? this.leasesOf?.release([inboxId]) : undefined))
      .catch((err: unknown) =>
        logger.warn({ inboxId, err: errorText(err) }, `${this.fleet}: lease not given back`),
      )
      .finally(() => {
        this.stopping.delete(inboxId);
        this.changed();
      });
    this.stopping.set(inboxId, done);
    return done;
  }

  /** Stops every loop, gives the leases back and leaves the membership (idempotent). */
  stopAll(): Promise<void> {
    this.shutDown ??= (async () => {
      if (!this.leasesOf) return;
      for (const [id] of this.loops) void this.stopOne(id);
      await Promise.all([...this.stopping.values()]);
      await this.leasesOf.leave().catch(() => undefined);
      logger.info(`${this.fleet}: mailboxes handed back`);
    })();
    return this.shutDown;
  }

  async onModuleDestroy(): Promise<void> {
    await this.stopAll();
  }

  onApplicationShutdown(): void {
    this.client?.disconnect();
  }
}
