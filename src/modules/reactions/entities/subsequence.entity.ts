import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CreatedAt, UpdatedAt } from '../../../database/columns.js';
import type { ReplyCategory } from '../../threads/reply-category.js';
import type { WorkspaceId } from '../../../common/tenant/workspace-id.js';

/** What moves a contact into a subsequence (CONTRACT §23). */
export type SubsequenceTrigger =
  { type: 'category'; categories: ReplyCategory[] } | { type: 'completed' } | { type: 'referral' };

export type SubsequenceStatus = 'active' | 'paused';

/** A campaign's subsequence: where a contact moves when its trigger fires. */
@Entity('subsequences')
@Index('idx_subsequences_campaign', ['workspaceId', 'campaignId', 'position', 'id'])
export class Subsequence {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' }) id: number;
  @Column({ type: 'uuid' }) workspaceId: WorkspaceId;
  @Column({ type: 'bigint' }) campaignId: number;
  @Column({ type: 'text' }) name: string;
  @Column({ type: 'jsonb' }) trigger: SubsequenceTrigger;
  @Column({ type: 'bigint' }) sequenceId: number;
  @Column({ type: 'integer', default: 0 }) startAfterDays: number;
  @Column({ type: 'integer' }) position: number;
  @Column({ type: 'text', default: 'active' }) status: SubsequenceStatus;
  @CreatedAt() createdAt: Date;
  @UpdatedAt() updatedAt: Date;
}
