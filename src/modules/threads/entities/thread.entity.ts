import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CreatedAt, Timestamp } from '../../../database/columns.js';
import type { ReplyCategory } from '../reply-category.js';
import type { WorkspaceId } from '../../../common/tenant/workspace-id.js';

@Entity('threads')
@Index(['workspaceId', 'createdAt', 'id'])
@Index('idx_threads_campaign', ['workspaceId', 'campaignId', 'createdAt', 'id'])
@Index('idx_threads_inbox', ['workspaceId', 'inboxId', 'createdAt', 'id'])
@Index('idx_threads_replied', ['workspaceId', 'createdAt', 'id'], { where: 'replied_at IS NOT NULL' })
@Index('idx_threads_category', ['workspaceId', 'category', 'createdAt', 'id'], {
  where: 'category IS NOT NULL',
})
@Index('idx_threads_not_replied', ['workspaceId', 'createdAt', 'id'], { where: 'replied_at IS NULL' })
export class Thread {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' }) id: number;
  @Column({ type: 'uuid' }) workspaceId: WorkspaceId;
  @Column({ type: 'uuid' }) inboxId: string;
  @Index() @Column({ type: 'bigint' }) contactId: number;
  @Index() @Column({ type: 'bigint', nullable: true }) enrollmentId: number | null;
  @Column({ type: 'bigint', nullable: true }) campaignId: number | null;
  @Column({ type: 'text' }) subject: string;
  @Column({ type: 'integer', default: 0 }) messageCount: number;
  @Timestamp() lastMessageAt: Date | null;
  /** Internal: when the contact first replied in this thread (the `has_reply` filter). */
  @Timestamp() repliedAt: Date | null;
  /** The category of the thread's latest categorised reply (the `category` filter); null before one. */
  @Column({ type: 'text', nullable: true }) category: ReplyCategory | null;
  /** A `not_now` reply's named day to come back, at the campaign's start time in the contact's zone. */
  @Timestamp() followUpAt: Date | null;
  /** The address a `wrong_person` reply pointed to. */
  @Column({ type: 'text', nullable: true }) referralEmail: string | null;
  @CreatedAt() createdAt: Date;
}
