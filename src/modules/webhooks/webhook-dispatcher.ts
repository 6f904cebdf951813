/**
 * The outbox dispatcher (CONTRACT §6): claims undispatched events (FOR UPDATE SKIP LOCKED, so every
 * worker process can run it), creates one delivery per endpoint of the event's workspace that
 * subscribes to its family, and marks the events dispatched, all in one statement (one
 * transaction). A crash before commit leaves the events undispatched; after it, the deliveries exist.
 */
import { Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { logger } from '../../common/logging/logger.js';
import { appConfig } from '../../config/app-config.js';
import { pgPool, type PgClient } from '../../database/pg-pool.js';
import { onOutboxWrite, OUTBOX_CHANNEL } from '../events/outbox.js';
import { OCCURRED_AT_ISO, WebhookDeliveryWorker, type ClaimedRow } from './webhook-delivery.worker.js';
import { webhookSettings } from './webhook-settings.js';

const BATCH = 1000;
const FIRST_BATCH = 100;

/**
 * The fan-out both passes share: claim up to $1 undispatched events (`evColumns` of them), create one
 * delivery per subscribed endpoint of their workspace, first attempt at `nextAttempt`, and mark the
 * events dispatched, in one statement.
 */
const fanOut = (evColumns: string, nextAttempt: string, returning: string): string => `
WITH ev AS (
  SELECT ${evColumns} FROM events
  WHERE dispatched_at IS NULL
  ORDER BY created_at
  LIMIT $1
  FOR UPDATE SKIP LOCKED
), ins AS (
  INSERT INTO webhook_deliveries (workspace_id, endpoint_id, event_id, event, status, next_attempt_at)
  SELECT ev.workspace_id, e.id, ev.id, ev.type, 'pending', ${nextAttempt}
  FROM ev JOIN webhook_endpoints e
    ON e.workspace_id = ev.workspace_id AND split_part(ev.type, '.', 1) = ANY (e.events)
  ON CONFLICT (endpoint_id, event_id) DO NOTHING
  RETURNING ${returning}
), upd AS (
  UPDATE events SET dispatched_at = now() FROM ev WHERE events.id = ev.id RETURNING 1
)`;

const DISPATCH_SQL = `${fanOut('id, workspace_id, type', 'now() + make_interval(secs => $2::float8)', '1')}
SELECT (SELECT count(*) FROM upd)::int AS events, (SELECT count(*) FROM ins)::int AS deliveries`;

/**
 * The same, when the first attempt is due at once: deliveries to enabled endpoints are created
 * already leased to this process ($3 seconds) and returned with what an attempt needs, so the local
 * delivery loop starts them without a claim round trip. If this process dies, the lease expires and
 * any process claims them.
 */
const DISPATCH_AND_LEASE_SQL = `${fanOut(
  'id, workspace_id, type, data, occurred_at',
  `now() + make_interval(secs => CASE WHEN e.status = 'enabled' THEN $3::float8 ELSE $2::float8 END)`,
  'id, attempts, event_id, event, workspace_id, endpoint_id',
)}
SELECT c.events, x.* FROM (SELECT count(*)::int AS events FROM upd) c
LEFT JOIN (
  SELECT ins.id, ins.attempts, ins.event_id, ins.event, ins.workspace_id, ins.endpoint_id, e.url,
    e.secret_sealed, e.status AS endpoint_status, ev.data::text AS data, ${OCCURRED_AT_ISO} AS occurred_at
  FROM ins JOIN ev ON ev.id = ins.event_id JOIN webhook_endpoints e ON e.id = ins.endpoint_id
) x ON true`;

/**
 * Below this much room in the local delivery loop the dispatcher waits instead of handing over, so
 * hand-offs come in batches big enough to be cheap (a 400-event pass costs about as much as 100).
 */
const MIN_HANDOFF = 400;

@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, OnModuleDestroy {
  private running = false;
  /** This process's `webhook-dispatch` loop (worker registry), bound at start. */
  private loop: { wake(): void; stop?(): Promise<void> } | null = null;
  private unsubscribe: (() => void) | null = null;
  private listener: PgClient | null = null;
  /** After an idle pass, take a small first batch so the first deliveries start at once. */
  private idle = true;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly deliveries: WebhookDeliveryWorker,
  ) {}

  onApplicationBootstrap(): void {
    this.running = true;
    this.unsubscribe = onOutboxWrite(() => this.wake());
    void this.listen();
    // The loop may have made an idle pass before this hook ran (hooks run in module order).
    this.wake();
  }

  bindLoop(loop: { wake(): void; stop?(): Promise<void> }): void {
    this.loop = loop;
  }

  /** The pause between idle passes. */
  get pollMs(): number {
    return webhookSettings().pollMs;
  }

  private wake(): void {
    this.loop?.wake();
  }

  async onModuleDestroy(): Promise<void> {
    this.running = false;
    this.unsubscribe?.();
    await this.loop?.stop?.();
    this.listener?.release(true);
    this.listener = null;
  }

  /**
   * LISTEN on the outbox channel with a dedicated connection, so events committed by other processes
   * (the API) wake this dispatcher at once. Polling remains the guarantee; on error we re-listen.
   */
  private async listen(): Promise<void> {
    if (!this.running) return;
    try {
      const client = await pgPool(this.db).connect();
      this.listener = client;
      client.on('notification', () => this.wake());
      client.on('error', () => {
        // Released already (shutdown, or an earlier error): releasing twice throws inside pg-pool.
        if (this.listener !== client) return;
        this.listener = null;
        client.release(true);
        if (this.running) setTimeout(() => void this.listen(), 1000).unref();
      });
      await client.query(`LISTEN ${OUTBOX_CHANNEL}`);
      if (!this.running) {
        this.listener = null;
        client.release(true);
      }
    } catch (err) {
      if (!this.running) return;
      logger.warn({ err }, 'webhook dispatcher could not LISTEN; polling only, retrying');
      setTimeout(() => void this.listen(), 5000).unref();
    }
  }

  /** One dispatch pass; returns how many events it took. Exposed for tests and the CLI. */
  async dispatchOnce(): Promise<{ events: number; deliveries: number }> {
    const firstDelay = appConfig().webhookRetryScheduleSeconds[0] ?? 0;
    const rows = (await this.db.query(DISPATCH_SQL, [BATCH, firstDelay])) as Array<{
      events: number;
      deliveries: number;
    }>;
    return rows[0] ?? { events: 0, deliveries: 0 };
  }

  /** Dispatches and hands the new deliveries of enabled endpoints to the local delivery loop. */
  async dispatchAndLease(limit: number): Promise<{ events: number; deliveries: number }> {
    const firstDelay = appConfig().webhookRetryScheduleSeconds[0] ?? 0;
    const rows = (await this.db.query(DISPATCH_AND_LEASE_SQL, [
      limit,
      firstDelay,
      this.deliveries.leaseSeconds,
    ])) as Array<ClaimedRow & { events: number; id: number | null; endpoint_status: string }>;
    const leased = rows.filter((r) => r.id !== null && r.endpoint_status === 'enabled');
    if (leased.length) this.deliveries.accept(leased);
    return { events: rows[0]?.events ?? 0, deliveries: rows.filter((r) => r.id !== null).length };
  }

  /**
   * One pass of the `webhook-dispatch` loop: turns committed events into deliveries and hands those of
   * enabled endpoints to this process's delivery loop. True when the batch was full (more waiting).
   */
  async pass(): Promise<boolean> {
    if (!this.running) return false;
    const immediate = (appConfig().webhookRetryScheduleSeconds[0] ?? 0) === 0;
    const room = this.deliveries.room();
    if (immediate && room < MIN_HANDOFF) {
      // The local loop is saturated: leave the events to other processes until room frees up.
      this.deliveries.whenRoom(() => this.wake());
      return false;
    }
    const batch = this.idle ? FIRST_BATCH : BATCH;
    const limit = immediate ? Math.min(batch, room) : batch;
    const r = immediate ? await this.dispatchAndLease(limit) : await this.dispatchOnce();
    if (r.deliveries > 0) this.deliveries.wake();
    this.idle = r.events === 0;
    return r.events >= limit;
  }
}
