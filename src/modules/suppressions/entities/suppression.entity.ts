import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CreatedAt } from '../../../database/columns.js';
import type { WorkspaceId } from '../../../common/tenant/workspace-id.js';

export const SUPPRESSION_REASONS = ['unsubscribed', 'bounced', 'complained', 'manual'] as const;
export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];

/** An address or a whole domain that must never be sent to. No route or command removes one. */
@Entity('suppressions')
@Index(['workspaceId', 'email'], { unique: true, where: 'email IS NOT NULL' })
@Index(['workspaceId', 'domain'], { unique: true, where: 'domain IS NOT NULL' })
@Index(['workspaceId', 'createdAt', 'id'])
@Index('idx_suppressions_reason', ['workspaceId', 'reason', 'createdAt', 'id'])
export class Suppression {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' }) id: number;
  @Column({ type: 'uuid' }) workspaceId: WorkspaceId;
  @Column({ type: 'text', nullable: true }) email: string | null;
  @Column({ type: 'text', nullable: true }) domain: string | null;
  @Column({ type: 'text' }) reason: SuppressionReason;
  @CreatedAt() createdAt: Date;
}
