import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CreatedAt } from '../../../database/columns.js';
import type { WorkspaceId } from '../../../common/tenant/workspace-id.js';

/** Counters per workspace, UTC day and campaign, bumped in the same transaction as the fact counted. */
@Entity('daily_metrics')
@Index(['workspaceId', 'date', 'campaignId'], { unique: true })
@Index(['workspaceId', 'createdAt', 'id'])
export class DailyMetric {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' }) id: number;
  @Column({ type: 'uuid' }) workspaceId: WorkspaceId;
  @Column({ type: 'date' }) date: string;
  @Column({ type: 'bigint' }) campaignId: number;
  @Column({ type: 'integer', default: 0 }) sent: number;
  @Column({ type: 'integer', default: 0 }) replied: number;
  /** Replies categorised `interested` (CONTRACT §20), on the reply's day. */
  @Column({ type: 'integer', default: 0 }) interested: number;
  @Column({ type: 'integer', default: 0 }) autoReplied: number;
  @Column({ type: 'integer', default: 0 }) bounced: number;
  /** Soft bounces (CONTRACT §18): not counted in `bounced`. */
  @Column({ type: 'integer', default: 0 }) softBounced: number;
  @Column({ type: 'integer', default: 0 }) complained: number;
  @Column({ type: 'integer', default: 0 }) unsubscribed: number;
  @Column({ type: 'integer', default: 0 }) enrolled: number;
  @Column({ type: 'integer', default: 0 }) completed: number;
  @CreatedAt() createdAt: Date;
}
