import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CreatedAt, Timestamp } from '../../../database/columns.js';
import type { WorkspaceId } from '../../../common/tenant/workspace-id.js';

@Entity('webhook_deliveries')
@Index(['endpointId', 'eventId'], { unique: true })
@Index(['endpointId', 'createdAt', 'id'])
@Index('idx_webhook_deliveries_due', ['nextAttemptAt'], { where: "status = 'pending'" })
@Index('idx_webhook_deliveries_finished', ['createdAt'], { where: "status <> 'pending'" })
@Index('idx_webhook_deliveries_pending_event', ['eventId'], { where: "status = 'pending'" })
export class WebhookDelivery {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' }) id: number;
  @Column({ type: 'uuid' }) workspaceId: WorkspaceId;
  @Column({ type: 'bigint' }) endpointId: number;
  @Column({ type: 'uuid' }) eventId: string;
  @Column({ type: 'text' }) event: string;
  @Column({ type: 'text', default: 'pending' }) status: 'pending' | 'succeeded' | 'failed';
  @Column({ type: 'integer', default: 0 }) attempts: number;
  @Timestamp() lastAttemptAt: Date | null;
  @Timestamp() nextAttemptAt: Date | null;
  @Column({ type: 'integer', nullable: true }) lastStatusCode: number | null;
  @Column({ type: 'text', nullable: true }) lastError: string | null;
  @Column({ type: 'integer', nullable: true }) lastDurationMs: number | null;
  /** timeout, redirect, http_status, oversized_response, connection, tls, blocked_target, internal. */
  @Column({ type: 'text', nullable: true }) lastErrorClass: string | null;
  /** At most 200 characters of the last response body; never more. */
  @Column({ type: 'text', nullable: true }) lastResponseExcerpt: string | null;
  @CreatedAt() createdAt: Date;
}
