import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { CreatedAt, Timestamp } from '../../../database/columns.js';
import type { WorkspaceId } from '../../../common/tenant/workspace-id.js';

/**
 * The events outbox: one row per event, written in the same transaction as the change
 * that caused it. `dispatchedAt` is set once the event has been fanned out to deliveries.
 */
@Entity('events')
@Index('idx_events_undispatched', ['createdAt'], { where: 'dispatched_at IS NULL' })
@Index('idx_events_dispatched', ['createdAt'], { where: 'dispatched_at IS NOT NULL' })
export class EventRecord {
  @PrimaryColumn({ type: 'uuid' }) id: string;
  // No index of its own: no query reads events by workspace, and every outbox write and dispatch
  // would maintain it (bench: imports write one event per new contact).
  @Column({ type: 'uuid' }) workspaceId: WorkspaceId;
  @Column({ type: 'text' }) type: string;
  // json, not jsonb: an outbox payload is written once and read once as a whole, never queried inside;
  // json keeps the text as built and is cheaper to write (bench: imports write one per new contact).
  @Column({ type: 'json' }) data: Record<string, unknown>;
  @Column({ type: 'timestamptz', precision: 3 }) occurredAt: Date;
  @Timestamp() dispatchedAt: Date | null;
  @CreatedAt() createdAt: Date;
}
