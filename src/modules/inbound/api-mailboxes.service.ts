/**
 * The worker's API mailboxes: inboxes read through their provider's own API (`transport: api`,
 * api-mailbox-reader.ts), sharded across workers exactly as IMAP mailboxes are (docs/mailboxes.md):
 * the same Redis membership, rendezvous hashing, leases and pass (mailbox-fleet.ts) in a fleet of their
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
import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { Draining } from '../../common/lifecycle/draining.js';
import { logger } from '../../common/logging/logger.js';
import { REDIS } from '../../common/redis/redis.module.js';
import { Slots } from '../../common/worker/slots.js';
import { appConfig, type AppConfig } from '../../config/app-config.js';
import { InboxStateRepository } from '../inboxes/inbox-state.repository.js';
import { ApiMailboxReader } from './api-mailbox-reader.js';
import { InboundRepository } from './inbound.repository.js';
import { errorText, MailboxFleet } from './mailbox-fleet.js';

const BACKOFF_BASE_MS = 1000;
const BACKOFF_MAX_MS = 5 * 60_000;
/** Consecutive failures before the inbox's `last_error` shows it. */
const FAILURES_BEFORE_ERROR = 3;

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
export class ApiMailboxes extends MailboxFleet<ApiMailboxLoop> {
  readonly readSlots: Slots;

  constructor(
    private readonly inbound: InboundRepository,
    private readonly inboxes: InboxStateRepository,
    readonly reader: ApiMailboxReader,
    draining: Draining,
    @Inject(REDIS) redis: Redis,
  ) {
    super('api', draining, redis);
    this.readSlots = new Slots(appConfig().apiPollConcurrency);
  }

  static intervalMs(config: AppConfig): number {
    return (config.imapLeaseSeconds * 1000) / 3;
  }

  protected listInboxIds(): Promise<string[]> {
    return this.inbound.apiInboxIdsAcrossWorkspaces();
  }

  protected newLoop(inboxId: string): ApiMailboxLoop {
    return new ApiMailboxLoop(inboxId, this);
  }

  noteError(inboxId: string, message: string): Promise<void> {
    return this.inboxes
      .noteErrorAcrossWorkspaces(inboxId, message)
      .catch((err: unknown) => logger.warn({ inboxId, err: errorText(err) }, 'api: last_error not saved'));
  }

  /** Inboxes this worker reads now. */
  count(): number {
    return this.loops.size;
  }
}
