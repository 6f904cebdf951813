/**
 * The outbox dispatcher: claims undispatched events (FOR UPDATE SKIP LOCKED, so every
 * worker process can run it), creates one delivery per endpoint of the event's workspace that
 * subscribes to its family, and marks the events dispatched, all in one statement (one
 * transaction). A crash before commit leaves the events undispatched; after it, the deliveries exist.
 */
import { Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { logger } from '../../common/logging/logger.js';
import { appConfig } from '../../config/app-config.js';
import type { PgClient } from '../../database/pg-pool.js';
import { onOutboxWrite, OUTBOX_CHANNEL } from '../events/outbox.js';
import { WebhookDeliveryRepository } from './webhook-delivery.repository.js';
import { WebhookDeliveryWorker } from './webhook-delivery.worker.js';
import { webhookSettings } from './webhook-settings.js';

const BATCH = 1000;
const FIRST_BATCH = 100;

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
    private readonly rows: WebhookDeliveryRepository,
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
      const client = await this.rows.listenAcrossWorkspaces(OUTBOX_CHANNEL, {
        notification: () => this.wake(),
        error: (failed) => {
          // Released already (shutdown, or an earlier error): releasing twice throws inside pg-pool.
          if (this.listener !== failed) return;
          this.listener = null;
          failed.release(true);
          if (this.running) setTimeout(() => void this.listen(), 1000).unref();
        },
      });
      this.listener = client;
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
    return this.rows.dispatchAcrossWorkspaces(BATCH, firstDelay);
  }

  /** Dispatches and hands the new deliveries of enabled endpoints to the local delivery loop. */
  async dispatchAndLease(limit: number): Promise<{ events: number; deliveries: number }> {
    const firstDelay = appConfig().webhookRetryScheduleSeconds[0] ?? 0;
    const rows = await this.rows.dispatchAndLeaseAcrossWorkspaces(
      limit,
      firstDelay,
      this.deliveries.leaseSeconds,
    );
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
