/**
 * Keeps the outbox and the delivery log bounded: finished deliveries older than EVENT_RETENTION_DAYS
 * (default 30), then dispatched events of that age that no delivery still waits for. One pass deletes
 * at most a batch of each; the worker loop (`event-retention`) runs again at once while batches come
 * back full, so a backlog is cleared without ever holding many rows locked at once.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { appConfig } from '../../config/app-config.js';
import { EventsRepository } from '../events/events.repository.js';
import { WebhookDeliveryRepository } from './webhook-delivery.repository.js';

/** Rows per delete statement. */
export const RETENTION_BATCH = 5000;

@Injectable()
export class EventRetentionService {
  readonly intervalMs = 10 * 60_000;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly events: EventsRepository,
  ) {}

  /** One batch of each; true when either came back full (more is waiting). */
  async sweepOnce(batch = RETENTION_BATCH): Promise<boolean> {
    const days = appConfig().eventRetentionDays;
    const deliveries = await this.deliveries.deleteFinishedAcrossWorkspaces(days, batch);
    const events = await this.events.deleteExpiredAcrossWorkspaces(days, batch, this.ds.manager);
    return deliveries >= batch || events >= batch;
  }
}
