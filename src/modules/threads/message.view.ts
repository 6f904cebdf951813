/**
 * A message as the API shows it; events (`message.sent`, `email.replied`) carry the same representation.
 */
import type { BounceView } from '../mail-reading/bounce.view.js';
import type { CategorySource, ReplyCategory } from './reply-category.js';
import type { Message } from './entities/message.entity.js';

const iso = (d: Date | null): string | null => d?.toISOString() ?? null;

export interface MessageView {
  id: number;
  thread_id: number;
  direction: Message['direction'];
  kind: Message['kind'];
  from: string;
  to: string;
  subject: string | null;
  body: string | null;
  body_purged_at: string | null;
  message_id: string | null;
  in_reply_to: string | null;
  /** A sent message with a recorded bounce shows `bounced` (its stored status stays `sent`). */
  status: Message['status'] | 'bounced';
  sent_at: string | null;
  received_at: string | null;
  step_position: number | null;
  variant: string | null;
  error: string | null;
  /** The bounce verdict: on a sent message that bounced, and on the report (kind `bounce`). */
  bounce: BounceView | null;
  /** A reply's category, null until decided and on every other kind (CONTRACT §20). */
  category: ReplyCategory | null;
  category_source: CategorySource | null;
  created_at: string;
}

export const toMessageView = (m: Message): MessageView => ({
  id: m.id,
  thread_id: m.threadId,
  direction: m.direction,
  kind: m.kind,
  from: m.fromAddress,
  to: m.toAddress,
  subject: m.subject,
  body: m.bodyPurgedAt ? null : m.body,
  body_purged_at: iso(m.bodyPurgedAt),
  message_id: m.messageId,
  in_reply_to: m.inReplyTo,
  status: m.direction === 'outbound' && m.bounce && m.status === 'sent' ? 'bounced' : m.status,
  sent_at: iso(m.sentAt),
  received_at: iso(m.receivedAt),
  step_position: m.stepPosition,
  variant: m.variant ?? null,
  error: m.error ?? null,
  bounce: m.bounce ?? null,
  category: m.category ?? null,
  category_source: m.categorySource ?? null,
  created_at: m.createdAt.toISOString(),
});

export { toMessageView as toMessageEventView, type MessageView as MessageEventView };
