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
import { onOutboxWrite } from '../events/outbox.js';
import { Waker } from './loop.js';
import { WebhookDeliveryWorker } from './webhook-delivery.worker.js';
import { webhookSettings } from './webhook-settings.js';

const BATCH = 1000;

const DISPATCH_SQL = `
WITH ev AS (
  SELECT id, workspace_id, type FROM events
  WHERE dispatched_at IS NULL
  ORDER BY created_at
  LIMIT $1
  FOR UPDATE SKIP LOCKED
), ins AS (
  INSERT INTO webhook_deliveries (workspace_id, endpoint_id, event_id, event, status, next_attempt_at)
  SELECT ev.workspace_id, e.id, ev.id, ev.type, 'pending', now() + make_interval(secs => $2)
  FROM ev JOIN webhook_endpoints e
    ON e.workspace_id = ev.workspace_id AND split_part(ev.type, '.', 1) = ANY (e.events)
  ON CONFLICT (endpoint_id, event_id) DO NOTHING
  RETURNING 1
), upd AS (
  UPDATE events SET dispatched_at = now() FROM ev WHERE events.id = ev.id RETURNING 1
)
SELECT (SELECT count(*) FROM upd)::int AS events, (SELECT count(*) FROM ins)::int AS deliveries`;

@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, OnModuleDestroy {
  private running = false;
  private loop: Promise<void> | null = null;
  private readonly waker = new Waker();
  private unsubscribe: (() => void) | null = null;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly deliveries: WebhookDeliveryWorker,
  ) {}

  onApplicationBootstrap(): void {
    this.running = true;
    this.unsubscribe = onOutboxWrite(() => this.waker.wake());
    this.loop = this.run();
  }

  async onModuleDestroy(): Promise<void> {
    this.running = false;
    this.unsubscribe?.();
    this.waker.wake();
    await this.loop;
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

  private async run(): Promise<void> {
    const { pollMs } = webhookSettings();
    while (this.running) {
      let full = false;
      try {
        const r = await this.dispatchOnce();
        if (r.deliveries > 0) this.deliveries.wake();
        full = r.events >= BATCH;
      } catch (err) {
        if (!this.running) break;
        logger.error({ err }, 'webhook dispatcher pass failed');
      }
      if (!full) await this.waker.sleep(pollMs);
    }
  }
}
