/** Threads and messages, read-only (CONTRACT §4); the sending engine writes them. */
import { Injectable } from '@nestjs/common';
import { ApiError } from '../../common/http/api-error.js';
import { paginate, type Page, type PageQueryDto } from '../../common/http/pagination.js';
import type { ListThreadsQueryDto } from './dto/thread.dto.js';
import type { Message } from './entities/message.entity.js';
import type { Thread } from './entities/thread.entity.js';
import { toMessageView, type MessageView } from './message.view.js';
import { toThreadView, type ThreadView } from './thread.view.js';
import { MessagesRepository, ThreadsRepository } from './threads.repository.js';

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
