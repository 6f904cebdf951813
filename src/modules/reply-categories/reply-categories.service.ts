/**
 * Corrections of a thread's category (`PATCH /threads/{id}`, CONTRACT §20): the thread's latest reply
 * takes the category with `category_source: "manual"`, with the same effects as a decided one
 * (`CategoryEffects`: the event again, `interested` counted or taken back, `unsubscribe_request`
 * suppresses), in one transaction.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ApiError } from '../../common/http/api-error.js';
import { ThreadsRepository } from '../threads/threads.repository.js';
import { toThreadView, type ThreadView } from '../threads/thread.view.js';
import { CategoryEffects } from './category-effects.js';
import { ReplyCategoriesRepository } from './reply-categories.repository.js';
import type { ReplyCategory } from '../threads/reply-category.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

@Injectable()
export class ReplyCategoriesService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly replies: ReplyCategoriesRepository,
    private readonly threads: ThreadsRepository,
    private readonly effects: CategoryEffects,
  ) {}

  /**
   * Sets the category of the thread's latest reply; 404 for an unknown thread, 409 for a thread
   * without a reply (nothing to categorise). Setting the category it already has manually changes
   * nothing and fires nothing.
   */
  async correct(workspaceId: WorkspaceId, threadId: number, category: ReplyCategory): Promise<ThreadView> {
    await this.ds.transaction(async (m) => {
      const found = await this.replies.latestReplyOfThread(workspaceId, threadId, m);
      if (!found) throw ApiError.notFound();
      if (found.replyId === null) {
        throw ApiError.conflict('the thread has no reply to categorise');
      }
      await this.effects.apply(m, {
        workspaceId,
        messageId: found.replyId,
        category,
        source: 'manual',
        onlyIfUnset: false,
      });
    });
    const thread = await this.threads.findOne(workspaceId, { id: threadId });
    if (!thread) throw ApiError.notFound();
    return toThreadView(thread);
  }
}
