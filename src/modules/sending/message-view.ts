/** The Message representation of CONTRACT §4, for events (`message.sent`, `email.replied`). */
import type { Message } from '../threads/entities/message.entity.js';

export interface MessageEventView {
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
  status: Message['status'];
  sent_at: string | null;
  received_at: string | null;
  step_position: number | null;
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

export const toMessageEventView = (m: Message): MessageEventView => ({
  id: m.id,
  thread_id: m.threadId,
  direction: m.direction,
  kind: m.kind,
  from: m.fromAddress,
  to: m.toAddress,
  subject: m.subject,
  body: m.body,
  body_purged_at: iso(m.bodyPurgedAt),
  message_id: m.messageId,
  in_reply_to: m.inReplyTo,
  status: m.status,
  sent_at: iso(m.sentAt),
  received_at: iso(m.receivedAt),
  step_position: m.stepPosition,
});
