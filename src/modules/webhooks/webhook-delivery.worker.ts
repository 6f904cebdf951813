/**
 * Attempts due deliveries. Every worker process runs this loop; state lives in
 * Postgres only, so a killed process loses nothing:
 * - claim: due pending deliveries of enabled endpoints, `FOR UPDATE SKIP LOCKED`, and lease them by
 *   moving `next_attempt_at` past the attempt deadline. A process that dies mid-attempt leaves the
 *   lease to expire, and another process (or the restarted one) attempts again: at least once.
 * - attempt (webhook-attempt.ts): target re-checked (every resolved address public) and pinned for
 *   the connection, signed, posted with undici.
 * - record: results are written in arrival order; successes in batches, a failure with its
 *   endpoint counter in one statement (five consecutive failures disable the endpoint).
 */
import { Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { unseal } from '../../common/crypto/crypto.js';
import { webhookSecretAt } from '../../common/crypto/sealed-columns.js';
import { logger } from '../../common/logging/logger.js';
import { countWebhookDelivery } from '../../common/metrics/metrics.js';
import { Draining } from '../../common/lifecycle/draining.js';
import { appConfig } from '../../config/app-config.js';
import { standardKey } from './signing.js';
import { resolverWithTimeout, systemResolver, type Resolver } from './target-guard.js';
import { attemptDelivery } from './webhook-attempt.js';
import { WebhookDeliveryRepository, type ClaimedRow } from './webhook-delivery.repository.js';
import { WebhookHttpClient, type AttemptOutcome } from './webhook-http.js';

export { OCCURRED_AT_ISO, type ClaimedRow } from './webhook-delivery.repository.js';
export { envelope } from './webhook-attempt.js';
import {
  DISABLE_AFTER_FAILURES,
  MAX_ATTEMPTS,
  webhookSettings,
  type WebhookSettings,
} from './webhook-settings.js';

interface Result {
  row: ClaimedRow;
  outcome: AttemptOutcome;
  at: Date;
}

@Injectable()
export class WebhookDeliveryWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private settings: WebhookSettings;
  private http: WebhookHttpClient;
  private resolver: Resolver;
  private running = false;
  /** This process's `webhook-delivery` loop (worker registry), bound at start. */
  private loop: { wake(): void; stop?(): Promise<void> } | null = null;
  private inFlight = 0;
  /** The last claim filled its batch, so more may be due: a finished attempt claims again at once. */
  private backlog = false;
  private readonly attempts = new Set<Promise<void>>();
  /** Leased deliveries handed over by the dispatcher, waiting for a free slot. */
  private readonly queue: Array<{ row: ClaimedRow; startBy: number }> = [];
  private onRoom: (() => void) | null = null;
  private readonly results: Result[] = [];
  private flushing: Promise<void> | null = null;
  private readonly secrets = new Map<string, { secret: string; key: Buffer }>();

  constructor(
    private readonly rows: WebhookDeliveryRepository,
    private readonly draining: Draining,
  ) {}

  onApplicationBootstrap(): void {
    this.settings = webhookSettings();
    this.http = new WebhookHttpClient(this.settings.timeoutMs);
    this.resolver = resolverWithTimeout(systemResolver, this.settings.timeoutMs);
    this.running = true;
    // Shutting down: no new attempt starts (queued ones are released below, in onModuleDestroy).
    this.draining.onBegin(() => {
      this.running = false;
    });
    // The loop may have made an idle pass before this hook ran (hooks run in module order).
    this.loop?.wake();
  }

  bindLoop(loop: { wake(): void; stop?(): Promise<void> }): void {
    this.loop = loop;
  }

  /** The pause between idle passes. */
  get pollMs(): number {
    return (this.settings ?? webhookSettings()).pollMs;
  }

  async onModuleDestroy(): Promise<void> {
    this.running = false;
    await this.loop?.stop?.();
    // Leased but not started: released, so another process attempts them now, not when the lease ends.
    const now = Date.now();
    const unstarted = this.queue.splice(0).filter((q) => now <= q.startBy);
    await this.rows
      .releaseLeasesAcrossWorkspaces(unstarted.map((q) => Number(q.row.id)))
      .catch((err: unknown) => logger.warn({ err }, 'webhook leases not released (due when they end)'));
    await Promise.allSettled([...this.attempts]);
    await this.flushing;
    await this.flush();
    await this.http?.close();
  }

  /** Called when new deliveries exist (dispatcher) or an endpoint is re-enabled. */
  wake(): void {
    this.loop?.wake();
  }

  /** Seconds a claimed delivery stays leased to this process. */
  get leaseSeconds(): number {
    return 3 * Math.ceil(this.settings.timeoutMs / 1000) + 5;
  }

  /** How many more leased deliveries this process takes over right now (0 when shutting down). */
  room(): number {
    if (!this.running) return 0;
    const { concurrency } = this.settings;
    const capacity = concurrency + Math.max(1000, 4 * concurrency);
    return Math.max(0, capacity - this.queue.length - this.inFlight);
  }

  /** Calls `listener` once, when room frees up (the dispatcher waits on it while saturated). */
  whenRoom(listener: () => void): void {
    this.onRoom = listener;
  }

  /**
   * Takes deliveries the dispatcher created already leased to this process (saves a claim round
   * trip). One not started well within its lease is dropped: the lease expires and any process
   * claims it again.
   */
  accept(rows: ClaimedRow[]): void {
    const { timeoutMs } = this.settings;
    const startBy = Date.now() + (this.leaseSeconds * 1000 - timeoutMs) / 2;
    for (const row of rows) this.queue.push({ row, startBy });
    this.pump();
  }

  private pump(): void {
    const { concurrency } = this.settings;
    while (this.running && this.inFlight < concurrency && this.queue.length) {
      const next = this.queue.shift()!;
      if (Date.now() <= next.startBy) this.start(next.row);
    }
    // Ask for more while a good part of the queue is still ahead, so the next dispatch overlaps.
    if (this.onRoom && this.room() >= 400) {
      const listener = this.onRoom;
      this.onRoom = null;
      listener();
    }
  }

  /**
   * One pass of the `webhook-delivery` loop: claims due deliveries up to the free slots and starts
   * their attempts. True when the claim filled its batch (more may be due right now).
   */
  async pass(): Promise<boolean> {
    if (!this.running) return false;
    const { concurrency } = this.settings;
    const batch = Math.max(1, Math.min(200, concurrency));
    const free = concurrency - this.inFlight - this.queue.length;
    if (free < Math.min(batch, Math.ceil(concurrency / 4))) return false;
    let claimed: ClaimedRow[];
    try {
      claimed = await this.rows.claimDueAcrossWorkspaces(Math.min(free, batch), this.leaseSeconds);
    } catch (err) {
      this.backlog = false;
      throw err;
    }
    for (const row of claimed) this.start(row);
    this.backlog = claimed.length >= Math.min(free, batch);
    return this.backlog;
  }

  private start(row: ClaimedRow): void {
    this.inFlight += 1;
    const p = this.attempt(row)
      .then((outcome) => {
        countWebhookDelivery(outcome.ok ? 'succeeded' : (outcome.errorClass ?? 'failed'), row.workspace_id);
        this.results.push({ row, outcome, at: new Date() });
        this.scheduleFlush();
      })
      .catch((err: unknown) => {
        // Recorded as a failed attempt, so a bug cannot make a delivery loop on its lease forever.
        logger.error({ err, delivery: row.id }, 'webhook attempt crashed');
        countWebhookDelivery('internal', row.workspace_id);
        this.results.push({
          row,
          outcome: {
            ok: false,
            statusCode: null,
            error: 'internal error',
            errorClass: 'internal',
            durationMs: 0,
            excerpt: null,
          },
          at: new Date(),
        });
        this.scheduleFlush();
      })
      .finally(() => {
        this.inFlight -= 1;
        this.attempts.delete(p);
        this.pump();
        if (this.backlog) this.loop?.wake();
      });
    this.attempts.add(p);
  }

  private secretFor(row: ClaimedRow): { secret: string; key: Buffer } {
    const cacheKey = `${row.endpoint_id}:${row.secret_sealed}`;
    let found = this.secrets.get(cacheKey);
    if (!found) {
      const secret = unseal(row.secret_sealed, webhookSecretAt(row.endpoint_id));
      found = { secret, key: standardKey(secret) };
      if (this.secrets.size > 10_000) this.secrets.clear();
      this.secrets.set(cacheKey, found);
    }
    return found;
  }

  private attempt(row: ClaimedRow): Promise<AttemptOutcome> {
    return attemptDelivery(row, this.secretFor(row), this.http, this.resolver);
  }

  private scheduleFlush(): void {
    if (this.flushing) return;
    this.flushing = (async () => {
      // Let a few results gather so successes are written in batches.
      await new Promise((r) => setTimeout(r, 10));
      try {
        await this.flush();
      } finally {
        this.flushing = null;
        if (this.results.length) this.scheduleFlush();
      }
    })();
  }

  /** Writes queued results in arrival order. */
  private async flush(): Promise<void> {
    while (this.results.length) {
      const taken = this.results.splice(0, this.results.length);
      let run: Result[] = [];
      for (const r of taken) {
        if (r.outcome.ok) {
          run.push(r);
          continue;
        }
        if (run.length) await this.writeSuccesses(run);
        run = [];
        await this.writeFailure(r);
      }
      if (run.length) await this.writeSuccesses(run);
    }
  }

  private async writeSuccesses(rs: Result[]): Promise<void> {
    try {
      await this.rows.recordSuccessesAcrossWorkspaces(
        rs.map((r) => ({
          id: r.row.id,
          statusCode: r.outcome.statusCode,
          durationMs: r.outcome.durationMs,
          at: r.at,
          excerpt: r.outcome.excerpt,
        })),
      );
    } catch (err) {
      // The lease expires and the deliveries are attempted again: at least once.
      logger.error({ err, count: rs.length }, 'recording webhook successes failed');
    }
  }

  private async writeFailure(r: Result): Promise<void> {
    const attemptNo = r.row.attempts + 1;
    const schedule = appConfig().webhookRetryScheduleSeconds;
    const base = schedule[Math.min(attemptNo, schedule.length - 1)] ?? 0;
    const delay = base * (1 + Math.random() * 0.1);
    const reason = `${DISABLE_AFTER_FAILURES} consecutive failed attempts (last: ${r.outcome.error ?? 'failure'})`;
    try {
      await this.rows.recordFailureAcrossWorkspaces({
        id: r.row.id,
        endpointId: r.row.endpoint_id,
        maxAttempts: MAX_ATTEMPTS,
        delaySeconds: delay,
        at: r.at,
        statusCode: r.outcome.statusCode,
        error: r.outcome.error,
        errorClass: r.outcome.errorClass,
        disableAfter: DISABLE_AFTER_FAILURES,
        disabledReason: reason,
        durationMs: r.outcome.durationMs,
        excerpt: r.outcome.excerpt,
      });
    } catch (err) {
      logger.error({ err, delivery: r.row.id }, 'recording a webhook failure failed');
    }
  }
}
