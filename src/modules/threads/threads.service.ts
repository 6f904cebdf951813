/** Threads and messages, read-only; the sending engine writes them. */
import { Injectable } from '@nestjs/common';
import { ApiError } from '../../common/http/api-error.js';
import type { Page, PageQueryDto } from '../../common/http/pagination.js';
import type { ListThreadsQueryDto } from './dto/thread.dto.js';
import type { Message } from './entities/message.entity.js';
import type { Thread } from './entities/thread.entity.js';
import { toMessageView, type MessageView } from './message.view.js';
import { toThreadView, type ThreadView } from './thread.view.js';
import { MessagesRepository, ThreadsRepository } from './threads.repository.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

@Injectable()
export class ThreadsService {
  constructor(
    private readonly threads: ThreadsRepository,
    private readonly messages: MessagesRepository,
  ) {}

  async list(workspaceId: WorkspaceId, query: ListThreadsQueryDto): Promise<Page<Thread>> {
    return this.threads.page(workspaceId, query, {
      contactId: query.contact_id,
      campaignId: query.campaign_id,
      inboxId: query.inbox_id?.toLowerCase(),
      hasReply: query.has_reply === undefined ? undefined : query.has_reply === 'true',
      category: query.category,
    });
  }

  async show(workspaceId: WorkspaceId, id: number): Promise<ThreadView> {
    const row = await this.threads.findOne(workspaceId, { id });
    if (!row) throw ApiError.notFound();
    return toThreadView(row);
  }

  async messagesOf(workspaceId: WorkspaceId, threadId: number, query: PageQueryDto): Promise<Page<Message>> {
    const thread = await this.threads.findOne(workspaceId, { id: threadId });
    if (!thread) throw ApiError.notFound();
    return this.messages.pageOfThread(workspaceId, threadId, query);
  }

  async message(workspaceId: WorkspaceId, id: number): Promise<MessageView> {
    const row = await this.messages.findOne(workspaceId, { id });
    if (!row) throw ApiError.notFound();
    return toMessageView(row);
  }
}
