/**
 * What a reply's category does (CONTRACT §20), in the caller's transaction so that the category, its
 * event, its counter and its suppression commit together (or not at all):
 * - the reply's `category` / `category_source` are set (by the sweep only while unset: decided once);
 * - the thread takes the category of its latest categorised reply;
 * - `interested` counts (daily and per step, on the reply's day, like `replied`); a correction away
 *   from `interested` takes the count back, so the counter is the number of replies now `interested`;
 * - what the category does to the contact (a reply speaks for its writer: the contact is unsubscribed,
 *   moved into a subsequence or referred from only when the contact wrote it; anyone else's opt-out
 *   suppresses their own address and stops the thread's enrollment) is decided by
 *   `Reactions.afterCategory` (reactions module: the one owner of what happens to a contact after mail
 *   arrives); this file reads who wrote the reply and passes it on;
 * - `email.categorized` fires.
 */
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { MetricCounters } from '../analytics/metrics.js';
import { Outbox } from '../events/outbox.js';
import { Reactions } from '../reactions/reactions.js';
import { ReplyCategoryWritesRepository } from '../threads/reply-category-writes.repository.js';
import { ReplyCategoriesRepository } from './reply-categories.repository.js';
import type { CategorySource, ReplyCategory } from '../threads/reply-category.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

export interface CategoryDecision {
  workspaceId: WorkspaceId;
  messageId: number;
  category: ReplyCategory;
  source: CategorySource;
  /** The sweep: only a reply without a category yet. A correction (`manual`) replaces it. */
  onlyIfUnset: boolean;
}

@Injectable()
export class CategoryEffects {
  constructor(
    private readonly replies: ReplyCategoriesRepository,
    private readonly categories: ReplyCategoryWritesRepository,
    private readonly reactions: Reactions,
    private readonly counters: MetricCounters,
    private readonly outbox: Outbox,
  ) {}

  /**
   * Applies a category to a reply; whether anything changed (false: already decided, not a reply, or
   * the same category and source again).
   */
  async apply(m: EntityManager, d: CategoryDecision): Promise<boolean> {
    const repo = this.replies;
    const ws = d.workspaceId;
    // Lock order: the reply's thread row first, then the reply. A correction locks the thread before
    // it picks the thread's latest reply; the sweep must take the same order, or the two deadlock.
    await this.categories.lockThreadOfReply(ws, d.messageId, m);
    const set = await this.categories.setCategory(ws, d.messageId, d.category, d.source, d.onlyIfUnset, m);
    if (!set) return false;
    const context = await repo.threadContext(ws, set.thread_id, m);
    // Who wrote the reply decides whom it speaks for (read here, decided in Reactions).
    const writer = context ? await repo.replyWriter(ws, d.messageId, m) : undefined;
    await this.reactions.afterCategory(m, {
      workspaceId: ws,
      threadId: set.thread_id,
      messageId: d.messageId,
      category: d.category,
      previousCategory: set.previous_category,
      context,
      writer,
    });
    await this.categories.refreshThreadCategory(ws, set.thread_id, m);
    const campaignId = context?.campaign_id ?? null;
    const was = set.previous_category === 'interested';
    const is = d.category === 'interested';
    if (campaignId !== null && was !== is) {
      const by = is ? 1 : -1;
      const day = new Date(set.received_at);
      await this.counters.bump(m, ws, campaignId, 'interested', by, day);
      await this.counters.bumpStep(m, ws, campaignId, 'interested', { threadId: set.thread_id }, day, by);
    }
    await this.outbox.record(m, {
      workspaceId: ws,
      type: 'email.categorized',
      data: {
        message_id: d.messageId,
        thread_id: set.thread_id,
        contact_id: context?.contact_id ?? null,
        campaign_id: campaignId,
        category: d.category,
        category_source: d.source,
      },
    });
    return true;
  }
}
