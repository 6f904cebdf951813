/** Threads and messages, read-only (CONTRACT §4); the sending engine writes them. */
import { Injectable } from '@nestjs/common';
import { ApiError } from '../../common/http/api-error.js';
import { paginate, type Page, type PageQueryDto } from '../../common/http/pagination.js';
import type { ListThreadsQueryDto } from './dto/thread.dto.js';
import type { Message } from './entities/message.entity.js';
import type { Thread } from './entities/thread.entity.js';
import { MessagesRepository, ThreadsRepository } from './threads.repository.js';

const iso = (d: Date | null): string | null => d?.toISOString() ?? null;

export interface ThreadView {
  id: number;
  inbox_id: string;
  contact_id: number;
  enrollment_id: number | null;
  campaign_id: number | null;
  subject: string;
  message_count: number;
  last_message_at: string | null;
  created_at: string;
}

export const toThreadView = (t: Thread): ThreadView => ({
  id: t.id,
  inbox_id: t.inboxId,
  contact_id: t.contactId,
  enrollment_id: t.enrollmentId,
  campaign_id: t.campaignId,
  subject: t.subject,
  message_count: t.messageCount,
  last_message_at: iso(t.lastMessageAt),
  created_at: t.createdAt.toISOString(),
});

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
  status: Message['status'];
  sent_at: string | null;
  received_at: string | null;
  step_position: number | null;
  error: string | null;
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
  status: m.status,
  sent_at: iso(m.sentAt),
  received_at: iso(m.receivedAt),
  step_position: m.stepPosition,
  error: m.error ?? null,
  created_at: m.createdAt.toISOString(),
});

@Injectable()
export class ThreadsService {
  constructor(
    private readonly threads: ThreadsRepository,
    private readonly messages: MessagesRepository,
  ) {}

  async list(workspaceId: string, query: ListThreadsQueryDto): Promise<Page<Thread>> {
    const qb = this.threads.query(workspaceId, 't');
    if (query.contact_id !== undefined)
      qb.andWhere('t.contactId = :contactId', { contactId: query.contact_id });
    if (query.campaign_id !== undefined) {
      qb.andWhere('t.campaignId = :campaignId', { campaignId: query.campaign_id });
    }
    if (query.inbox_id !== undefined)
      qb.andWhere('t.inboxId = :inboxId', { inboxId: query.inbox_id.toLowerCase() });
    return paginate(qb, 't', query, { tenant: workspaceId, route: 'threads.index' });
  }

  async show(workspaceId: string, id: number): Promise<ThreadView> {
    const row = await this.threads.findOne(workspaceId, { id });
    if (!row) throw ApiError.notFound();
    return toThreadView(row);
  }

  async messagesOf(workspaceId: string, threadId: number, query: PageQueryDto): Promise<Page<Message>> {
    const thread = await this.threads.findOne(workspaceId, { id: threadId });
    if (!thread) throw ApiError.notFound();
    const qb = this.messages.query(workspaceId, 'm').andWhere('m.threadId = :threadId', { threadId });
    return paginate(qb, 'm', query, { tenant: workspaceId, route: `threads.${threadId}.messages.index` });
  }

  async message(workspaceId: string, id: number): Promise<MessageView> {
    const row = await this.messages.findOne(workspaceId, { id });
    if (!row) throw ApiError.notFound();
    return toMessageView(row);
  }
}
