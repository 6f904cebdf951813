/**
 * Attempts due deliveries (CONTRACT §6). Every worker process runs this loop; state lives in
 * Postgres only, so a killed process loses nothing:
 * - claim: due pending deliveries of enabled endpoints, `FOR UPDATE SKIP LOCKED`, and lease them by
 *   moving `next_attempt_at` past the attempt deadline. A process that dies mid-attempt leaves the
 *   lease to expire, and another process (or the restarted one) attempts again: at least once.
 * - attempt: target re-checked (every resolved address public) and pinned for the connection,
 *   signed, posted with undici.
 * - record: results are written in arrival order; successes in batches, a failure with its
 *   endpoint counter in one statement (five consecutive failures disable the endpoint).
 */
import { Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { unseal } from '../../common/crypto/crypto.js';
import { webhookSecretAt } from '../../common/crypto/sealed-columns.js';
import { logger } from '../../common/logging/logger.js';
import { appConfig } from '../../config/app-config.js';
import { signedHeaders, standardKey } from './signing.js';
import {
  checkTarget,
  ResolveTimeoutError,
  resolverWithTimeout,
  systemResolver,
  UnsafeTargetError,
  type Resolver,
} from './target-guard.js';
import { WebhookHttpClient, type AttemptOutcome } from './webhook-http.js';
import {
  DISABLE_AFTER_FAILURES,
  MAX_ATTEMPTS,
  webhookSettings,
  type WebhookSettings,
} from './webhook-settings.js';

export interface ClaimedRow {
  id: number;
  attempts: number;
  event_id: string;
  event: string;
  workspace_id: string;
  endpoint_id: number;
  url: string;
  secret_sealed: string;
  /** The event's data as JSON text (jsonb::text), spliced into the envelope as is. */
  data: string;
  /** ISO 8601 UTC with milliseconds, formatted by Postgres. */
  occurred_at: string;
}

interface Result {
  row: ClaimedRow;
  outcome: AttemptOutcome;
  at: Date;
}

/** `occurred_at` as the envelope shows it, formatted in SQL (no Date round trip). */
export const OCCURRED_AT_ISO = `to_char(ev.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The envelope's exact bytes: `data` is already JSON text from Postgres (no parse and re-stringify). */
export function envelope(
  row: Pick<ClaimedRow, 'event_id' | 'event' | 'occurred_at' | 'workspace_id' | 'data'>,
): string {
  return (
    `{"id":${JSON.stringify(row.event_id)},"version":"v1","event":${JSON.stringify(row.event)},` +
    `"occurred_at":${JSON.stringify(row.occurred_at)},"workspace_id":${JSON.stringify(row.workspace_id)},` +
    `"data":${row.data}}`
  );
}

const CLAIM_SQL = `
WITH due AS (
  SELECT d.id FROM webhook_deliveries d
  JOIN webhook_endpoints e ON e.id = d.endpoint_id
  WHERE d.status = 'pending' AND d.next_attempt_at <= now() AND e.status = 'enabled'
  ORDER BY d.next_attempt_at
  LIMIT $1
  FOR UPDATE OF d SKIP LOCKED
)
UPDATE webhook_deliveries d
SET next_attempt_at = now() + make_interval(secs => $2::float8)
FROM due, webhook_endpoints e, events ev
WHERE d.id = due.id AND e.id = d.endpoint_id AND ev.id = d.event_id
RETURNING d.id, d.attempts, d.event_id, d.event, d.workspace_id, d.endpoint_id, e.url, e.secret_sealed,
  ev.data::text AS data, ${OCCURRED_AT_ISO} AS occurred_at`;

const SUCCESS_SQL = `
WITH v AS (
  SELECT * FROM unnest($1::int[], $2::int[], $3::int[], $4::timestamptz[], $5::text[])
    AS v(id, code, ms, at, excerpt)
), upd AS (
  UPDATE webhook_deliveries d
  SET status = 'succeeded', attempts = d.attempts + 1, last_attempt_at = v.at, next_attempt_at = NULL,
      last_status_code = v.code, last_error = NULL, last_error_class = NULL, last_duration_ms = v.ms,
      last_response_excerpt = v.excerpt
  FROM v WHERE d.id = v.id AND d.status = 'pending'
  RETURNING d.endpoint_id
)
UPDATE webhook_endpoints e SET consecutive_failures = 0
WHERE e.id IN (SELECT endpoint_id FROM upd) AND e.consecutive_failures <> 0`;

const FAILURE_SQL = `
WITH ep AS (
  UPDATE webhook_endpoints
  SET consecutive_failures = consecutive_failures + 1,
      status = CASE WHEN consecutive_failures + 1 >= $9 THEN 'disabled' ELSE status END,
      disabled_reason = CASE WHEN consecutive_failures + 1 >= $9 AND status = 'enabled'
        THEN $10 ELSE disabled_reason END,
      updated_at = now()
  WHERE id = $2
  RETURNING id
)
UPDATE webhook_deliveries d
SET attempts = d.attempts + 1,
    status = CASE WHEN d.attempts + 1 >= $3 THEN 'failed' ELSE 'pending' END,
    next_attempt_at = CASE WHEN d.attempts + 1 >= $3 THEN NULL ELSE now() + make_interval(secs => $4::float8) END,
    last_attempt_at = $5, last_status_code = $6, last_error = $7, last_error_class = $8,
    last_duration_ms = $11, last_response_excerpt = $12
WHERE d.id = $1 AND d.status = 'pending'`;

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

  constructor(@InjectDataSource() private readonly db: DataSource) {}

  onApplicationBootstrap(): void {
    this.settings = webhookSettings();
    this.http = new WebhookHttpClient(this.settings.timeoutMs);
    this.resolver = resolverWithTimeout(systemResolver, this.settings.timeoutMs);
    this.running = true;
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
    this.queue.length = 0;
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
      const raw = (await this.db.query(CLAIM_SQL, [Math.min(free, batch), this.leaseSeconds])) as [
        ClaimedRow[],
        number,
      ];
      claimed = raw[0];
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
        this.results.push({ row, outcome, at: new Date() });
        this.scheduleFlush();
      })
      .catch((err: unknown) => {
        // Recorded as a failed attempt, so a bug cannot make a delivery loop on its lease forever.
        logger.error({ err, delivery: row.id }, 'webhook attempt crashed');
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

  private async attempt(row: ClaimedRow): Promise<AttemptOutcome> {
    let target;
    const started = Date.now();
    try {
      target = await checkTarget(row.url, this.resolver);
    } catch (err) {
      const timedOut = err instanceof ResolveTimeoutError;
      return {
        ok: false,
        statusCode: null,
        error: err instanceof UnsafeTargetError || timedOut ? err.message : 'target check failed',
        errorClass: timedOut ? 'timeout' : 'blocked_target',
        durationMs: Date.now() - started,
        excerpt: null,
      };
    }
    const body = envelope(row);
    const { secret, key } = this.secretFor(row);
    const headers = signedHeaders(secret, row.event_id, row.event, body, new Date(), key);
    return this.http.post(target, headers, body);
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
      await this.db.query(SUCCESS_SQL, [
        rs.map((r) => r.row.id),
        rs.map((r) => r.outcome.statusCode),
        rs.map((r) => r.outcome.durationMs),
        rs.map((r) => r.at.toISOString()),
        rs.map((r) => r.outcome.excerpt),
      ]);
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
      await this.db.query(FAILURE_SQL, [
        r.row.id,
        r.row.endpoint_id,
        MAX_ATTEMPTS,
        delay,
        r.at.toISOString(),
        r.outcome.statusCode,
        r.outcome.error,
        r.outcome.errorClass,
        DISABLE_AFTER_FAILURES,
        reason,
        r.outcome.durationMs,
        r.outcome.excerpt,
      ]);
    } catch (err) {
      logger.error({ err, delivery: r.row.id }, 'recording a webhook failure failed');
    }
  }
}
