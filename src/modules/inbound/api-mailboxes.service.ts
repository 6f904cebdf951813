/**
 * The worker's API mailboxes: inboxes read through their provider's own API (`transport: api`,
 * api-mailbox-reader.ts), sharded across workers exactly as IMAP mailboxes are (docs/mailboxes.md):
 * the same Redis membership, rendezvous hashing and leases (mailbox-leases.ts) in a fleet of their
 * own (`<prefix>:api:workers`, `<prefix>:api:lease:<inbox id>`), so adding a worker moves only its
 * share, a clean stop hands its inboxes back at once and a killed worker's lapse after
 * IMAP_LEASE_SECONDS.
 *
 * Each pass (the `api-mailboxes` loop, every IMAP_LEASE_SECONDS / 3): heartbeat, list the API inboxes,
 * keep those this worker owns, renew or take their leases, start a reader loop for each newly held
 * inbox and stop those no longer held. A reader loop reads its inbox, then waits API_POLL_SECONDS (no
 * wait when more mail is waiting; the provider's Retry-After when it asked to slow down; a back-off
 * after a failure), while the lease is held; at most API_POLL_CONCURRENCY reads run at once.
 * The checkpoint is compare-and-set, so a worker that lost its lease meanwhile cannot move it back.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Inject, Injectable, type OnApplicationShutdown, type OnModuleDestroy } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { Draining } from '../../common/lifecycle/draining.js';
import { logger } from '../../common/logging/logger.js';
import { REDIS } from '../../common/redis/redis.module.js';
import { Slots } from '../../common/worker/slots.js';
import { appConfig, type AppConfig } from '../../config/app-config.js';
import { InboxStateRepository } from '../inboxes/inbox-state.repository.js';
import { ApiMailboxReader } from './api-mailbox-reader.js';
import { InboundRepository } from './inbound.repository.js';
import { MailboxLeases, ownerOf } from './mailbox-leases.js';

const BACKOFF_BASE_MS = 1000;
const BACKOFF_MAX_MS = 5 * 60_000;
/** Consecutive failures before the inbox's `last_error` shows it. */
const FAILURES_BEFORE_ERROR = 3;

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** One held inbox's loop: read, wait, read … until stopped or the lease is no longer held. */
class ApiMailboxLoop {
  private stopping = false;
  private wakeUp: (() => void) | null = null;
  private failures = 0;
  private done: Promise<void> | undefined;
  finished = false;

  constructor(
    readonly inboxId: string,
    private readonly owner: ApiMailboxes,
  ) {}

  start(): void {
    this.done ??= this.run()
      .catch((err: unknown) =>
        logger.error({ inboxId: this.inboxId, err: errorText(err) }, 'api: reader loop ended'),
      )
      .finally(() => (this.finished = true));
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.wakeUp?.();
    await this.done;
  }

  private active(): boolean {
    return !this.stopping && this.owner.holds(this.inboxId);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wakeUp = null;
        resolve();
      }, ms);
      timer.unref();
      this.wakeUp = () => {
        clearTimeout(timer);
        this.wakeUp = null;
        resolve();
      };
    });
  }

  private async run(): Promise<void> {
    const pollMs = appConfig().apiPollSeconds * 1000;
    while (this.active()) {
      let wait = pollMs;
      try {
        const out = await this.owner.readSlots.run(() =>
          this.active() ? this.owner.reader.read(this.inboxId, () => this.active()) : Promise.resolve(null),
        );
        if (!out || out.stop) break;
        this.failures = 0;
        if (out.waitMs !== undefined) wait = out.waitMs;
        else if (out.more) wait = 0;
      } catch (err) {
        this.failures += 1;
        const message = errorText(err);
        logger.warn(
          { inboxId: this.inboxId, err: message, failures: this.failures },
          'api: mailbox read failed',
        );
        if (this.failures >= FAILURES_BEFORE_ERROR)
          await this.owner.noteError(this.inboxId, `api: ${message.slice(0, 300)}`);
        const backoff = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (this.failures - 1));
        wait = Math.min(pollMs, backoff / 2 + Math.random() * (backoff / 2));
      }
      if (wait > 0 && this.active()) await this.sleep(wait);
    }
  }
}

@Injectable()
export class ApiMailboxes implements OnModuleDestroy, OnApplicationShutdown {
  private readonly loops = new Map<string, ApiMailboxLoop>();
  private readonly stopping = new Map<string, Promise<void>>();
  private leases: MailboxLeases | undefined;
  private leasedUntil = 0;
  private held = new Set<string>();
  private inboxIds: string[] = [];
  private shutDown: Promise<void> | undefined;
  private client: Redis | undefined;
  readonly readSlots: Slots;

  constructor(
    private readonly inbound: InboundRepository,
    private readonly inboxes: InboxStateRepository,
    readonly reader: ApiMailboxReader,
    private readonly draining: Draining,
    @Inject(REDIS) private readonly redis: Redis,
  ) {
    this.readSlots = new Slots(appConfig().apiPollConcurrency);
  }

  static intervalMs(config: AppConfig): number {
    return (config.imapLeaseSeconds * 1000) / 3;
  }

  get workerId(): string {
    return this.setUp().workerId;
  }

  private setUp(): MailboxLeases {
    if (!this.leases) {
      const config = appConfig();
      const id = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
      this.client = this.redis.duplicate({ enableAutoPipelining: false, enableOfflineQueue: true });
      this.client.on('error', () => undefined);
      this.leases = new MailboxLeases(
        this.client,
        config.redisPrefix,
        id,
        config.imapLeaseSeconds * 1000,
        'api',
      );
      this.draining.onBegin(() => void this.stopAll());
    }
    return this.leases;
  }

  holds(inboxId: string): boolean {
    return !this.draining.active && this.held.has(inboxId) && Date.now() < this.leasedUntil;
  }

  noteError(inboxId: string, message: string): Promise<void> {
    return this.inboxes
      .noteErrorAcrossWorkspaces(inboxId, message)
      .catch((err: unknown) => logger.warn({ inboxId, err: errorText(err) }, 'api: last_error not saved'));
  }

  /** One pass of the `api-mailboxes` loop (see the file's comment). */
  async pass(): Promise<void> {
    const leases = this.setUp();
    if (this.draining.active) return;
    const config = appConfig();
    const started = Date.now();
    let workers: string[];
    try {
      workers = await leases.heartbeat();
    } catch (err) {
      this.lapseIfStale();
      throw err;
    }
    const all = await this.inbound.apiInboxIdsAcrossWorkspaces().then(
      (ids) => (this.inboxIds = ids),
      (err: unknown) => {
        logger.warn({ err: errorText(err) }, 'api: inboxes not listed');
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
    this.leasedUntil = started + config.imapLeaseSeconds * 1000 * 0.8;
    this.held = held;
    for (const [id] of this.loops) if (!held.has(id)) void this.stopOne(id);
    for (const id of held) {
      if (this.loops.get(id)?.finished === false) continue;
      const loop = new ApiMailboxLoop(id, this);
      this.loops.set(id, loop);
      loop.start();
    }
  }

  private lapseIfStale(): void {
    if (Date.now() < this.leasedUntil) return;
    if (this.loops.size) logger.warn({ mailboxes: this.loops.size }, 'api: leases not renewed; stopping');
    for (const [id] of this.loops) void this.stopOne(id, false);
    this.held.clear();
  }

  private stopOne(inboxId: string, release = true): Promise<void> {
    const loop = this.loops.get(inboxId);
    this.loops.delete(inboxId);
    this.held.delete(inboxId);
    if (!loop) return this.stopping.get(inboxId) ?? Promise.resolve();
    const done = loop
      .stop()
      .then(() => (release ? this.leases?.release([inboxId]) : undefined))
      .catch((err: unknown) => logger.warn({ inboxId, err: errorText(err) }, 'api: lease not given back'))
      .finally(() => this.stopping.delete(inboxId));
    this.stopping.set(inboxId, done);
    return done;
  }

  stopAll(): Promise<void> {
    this.shutDown ??= (async () => {
      if (!this.leases) return;
      for (const [id] of this.loops) void this.stopOne(id);
      await Promise.all([...this.stopping.values()]);
      await this.leases.leave().catch(() => undefined);
    })();
    return this.shutDown;
  }

  async onModuleDestroy(): Promise<void> {
    await this.stopAll();
  }

  onApplicationShutdown(): void {
    this.client?.disconnect();
  }

  /** Inboxes this worker reads now. */
  count(): number {
    return this.loops.size;
  }
}
