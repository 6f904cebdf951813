import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CreatedAt, Timestamp, UpdatedAt } from '../../../database/columns.js';
import type { EnrollmentStatus, StopReason } from '../enrollment-state.js';
import type { WorkspaceId } from '../../../common/tenant/workspace-id.js';

@Entity('enrollments')
@Index('uq_enrollments_campaign_contact', ['campaignId', 'contactId'], {
  unique: true,
  where: 'subsequence_id IS NULL',
})
@Index('uq_enrollments_subsequence_contact', ['subsequenceId', 'contactId'], {
  unique: true,
  where: 'subsequence_id IS NOT NULL',
})
@Index('idx_enrollments_subsequence', ['workspaceId', 'subsequenceId', 'createdAt', 'id'], {
  where: 'subsequence_id IS NOT NULL',
})
@Index(['workspaceId', 'createdAt', 'id'])
@Index('idx_enrollments_campaign', ['workspaceId', 'campaignId', 'createdAt', 'id'])
@Index('idx_enrollments_status', ['workspaceId', 'status', 'createdAt', 'id'])
@Index('idx_enrollments_due', ['nextStepAt', 'id'], { where: "status = 'active'" })
export class Enrollment {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' }) id: number;
  @Column({ type: 'uuid' }) workspaceId: WorkspaceId;
  @Column({ type: 'bigint' }) campaignId: number;
  @Index() @Column({ type: 'bigint' }) contactId: number;
  @Column({ type: 'text', default: 'active' }) status: EnrollmentStatus;
  /** Steps already sent. */
  @Column({ type: 'integer', default: 0 }) currentStep: number;
  @Timestamp() nextStepAt: Date | null;
  @Column({ type: 'uuid', nullable: true }) inboxId: string | null;
  @Column({ type: 'text', nullable: true }) stopReason: StopReason | null;
  @Column({ type: 'text', nullable: true }) stopNote: string | null;
  @CreatedAt() createdAt: Date;
  @UpdatedAt() updatedAt: Date;
  @Timestamp() completedAt: Date | null;
  @Timestamp() stoppedAt: Date | null;
  /** The subsequence this enrollment runs (null: the campaign's own sequence). */
  @Column({ type: 'bigint', nullable: true }) subsequenceId: number | null;
  /** The enrollment whose trigger started this one. */
  @Column({ type: 'bigint', nullable: true }) parentEnrollmentId: number | null;
  /** An out-of-office hold: the next step is not sent before this (`next_step_at` moved to it). */
  @Timestamp() heldUntil: Date | null;
  @Column({ type: 'text', nullable: true }) heldReason: string | null;
}
