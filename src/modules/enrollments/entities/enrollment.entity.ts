import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CreatedAt, Timestamp, UpdatedAt } from '../../../database/columns.js';
import type { EnrollmentStatus, StopReason } from '../enrollment-state.js';
import type { WorkspaceId } from '../../../common/tenant/workspace-id.js';

@Entity('enrollments')
@Index(['campaignId', 'contactId'], { unique: true })
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
}
