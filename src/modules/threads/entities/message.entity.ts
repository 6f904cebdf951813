import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CreatedAt, Timestamp } from '../../../database/columns.js';
import type { BounceView } from '../../mail-reading/bounce.view.js';
import type { CategorySource, ReplyCategory } from '../reply-category.js';
import type { WorkspaceId } from '../../../common/tenant/workspace-id.js';

export type MessageDirection = 'outbound' | 'inbound';
/**
 * `email`: a sequence step; `manual`: sent from the API (`POST /threads/{id}/messages`); inbound:
 * `reply`, `auto_reply`, `bounce` (a delivery-status report), `complaint` (an RFC 5965 feedback report).
 */
export type MessageKind = 'email' | 'manual' | 'reply' | 'auto_reply' | 'bounce' | 'complaint';
/**
 * `sending` is internal: recorded before SMTP, finalised after. `smtpStartedAt` tells whether its SMTP
 * conversation had begun (a crash then leaves it in doubt, for review) or not (it is sent again).
 */
export type MessageStatus = 'sending' | 'sent' | 'failed' | 'received';

@Entity('messages')
@Index(['workspaceId', 'createdAt', 'id'])
@Index(['threadId', 'createdAt', 'id'])
@Index(['enrollmentId', 'stepPosition'], { unique: true, where: "direction = 'outbound'" })
@Index('idx_messages_idempotency_key', ['workspaceId', 'idempotencyKey'], {
  unique: true,
  where: 'idempotency_key IS NOT NULL',
})
@Index('idx_messages_outbound_to', ['workspaceId', 'toAddress', 'id'], { where: "direction = 'outbound'" })
@Index('idx_messages_uncategorised', ['id'], {
  where: "kind = 'reply' AND category IS NULL AND NOT category_awaiting_ai",
})
@Index('idx_messages_awaiting_ai', ['workspaceId', 'id'], {
  where: "kind = 'reply' AND category IS NULL AND category_awaiting_ai",
})
@Index('idx_messages_manual_sending', ['smtpStartedAt'], { where: "status = 'sending' AND kind = 'manual'" })
export class Message {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' }) id: number;
  @Column({ type: 'uuid' }) workspaceId: WorkspaceId;
  @Column({ type: 'bigint' }) threadId: number;
  @Column({ type: 'bigint', nullable: true }) enrollmentId: number | null;
  @Column({ type: 'text' }) direction: MessageDirection;
  @Column({ type: 'text' }) kind: MessageKind;
  @Column({ type: 'text' }) fromAddress: string;
  @Column({ type: 'text' }) toAddress: string;
  @Column({ type: 'text', nullable: true }) subject: string | null;
  @Column({ type: 'text', nullable: true }) body: string | null;
  @Timestamp() bodyPurgedAt: Date | null;
  /** RFC 5322 Message-ID, with angle brackets. */
  @Index() @Column({ type: 'text', nullable: true }) messageId: string | null;
  @Column({ type: 'text', nullable: true }) inReplyTo: string | null;
  @Column({ type: 'text' }) status: MessageStatus;
  @Timestamp() sentAt: Date | null;
  @Timestamp() receivedAt: Date | null;
  @Column({ type: 'integer', nullable: true }) stepPosition: number | null;
  /** Why a `failed` message failed: the server's reply, or `outcome unknown: …`. */
  @Column({ type: 'text', nullable: true }) error: string | null;
  /** The step variant sent (`A`..`E`); null for inbound mail. */
  @Column({ type: 'text', nullable: true }) variant: string | null;
  /** Internal: when the message hard bounced (SMTP 5xx or a DSN); read by bounce protection. */
  @Timestamp() bouncedAt: Date | null;
  /**
   * The bounce verdict (CONTRACT §18): on a sent message that bounced (set once) and on the report
   * (kind `bounce`) that said so. The API shows a sent message with a verdict as `status: "bounced"`.
   */
  @Column({ type: 'jsonb', nullable: true }) bounce: BounceView | null;
  /** Internal: when `bounce` was recorded on a sent message (the 30-day soft-bounce rule). */
  @Timestamp() bounceRecordedAt: Date | null;
  /** Internal: set just before the message's SMTP conversation began. */
  @Timestamp() smtpStartedAt: Date | null;
  /** Internal: the Idempotency-Key of a manual reply, so a retry never sends it twice. */
  @Column({ type: 'text', nullable: true }) idempotencyKey: string | null;
  /** A reply's category (CONTRACT §20): null until the `reply-categorize` sweep decides it. */
  @Column({ type: 'text', nullable: true }) category: ReplyCategory | null;
  /** `rules`, `ai` or `manual` (`PATCH /threads/{id}`); null while `category` is. */
  @Column({ type: 'text', nullable: true }) categorySource: CategorySource | null;
  /**
   * The rules have seen the reply and left it to the workspace's AI provider (CONTRACT §26): claimed
   * round-robin across workspaces by the `reply-categorize-ai` loop.
   */
  @Column({ type: 'boolean', default: false }) categoryAwaitingAi: boolean;
  /** Internal: the categorising sweep's claim; an expired lease is taken again. */
  @Timestamp() categoryLeaseUntil: Date | null;
  @CreatedAt() createdAt: Date;
}
