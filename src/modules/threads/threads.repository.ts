import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { TenantRepository } from '../../common/tenant/tenant.repository.js';
import { Message } from './entities/message.entity.js';
import { Thread } from './entities/thread.entity.js';
import { paginate, type Page, type PageQueryDto } from '../../common/http/pagination.js';
import { rowsOf } from '../../database/query-rows.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

@Injectable()
export class ThreadsRepository extends TenantRepository<Thread> {
  constructor(@InjectRepository(Thread) repo: Repository<Thread>) {
    super(repo);
  }

  /** A page of threads, filtered by contact, campaign, inbox, reply and category. */
  page(
    workspaceId: WorkspaceId,
    query: PageQueryDto,
    filter: {
      contactId?: number;
      campaignId?: number;
      inboxId?: string;
      hasReply?: boolean;
      category?: string;
    },
  ): Promise<Page<Thread>> {
    const qb = this.query(workspaceId, 't');
    if (filter.contactId !== undefined)
      qb.andWhere('t.contactId = :contactId', { contactId: filter.contactId });
    if (filter.campaignId !== undefined)
      qb.andWhere('t.campaignId = :campaignId', { campaignId: filter.campaignId });
    if (filter.inboxId !== undefined) qb.andWhere('t.inboxId = :inboxId', { inboxId: filter.inboxId });
    // Each value has its partial index (idx_threads_replied, idx_threads_not_replied).
    if (filter.hasReply !== undefined)
      qb.andWhere(filter.hasReply ? 't.repliedAt IS NOT NULL' : 't.repliedAt IS NULL');
    // idx_threads_category (partial: categorised threads only).
    if (filter.category !== undefined) qb.andWhere('t.category = :category', { category: filter.category });
    return paginate(qb, 't', query, { tenant: workspaceId, route: 'threads.index' });
  }
}

@Injectable()
export class MessagesRepository extends TenantRepository<Message> {
  constructor(@InjectRepository(Message) repo: Repository<Message>) {
    super(repo);
  }

  /** A page of one thread's messages. */
  pageOfThread(workspaceId: WorkspaceId, threadId: number, query: PageQueryDto): Promise<Page<Message>> {
    const qb = this.query(workspaceId, 'm').andWhere('m.threadId = :threadId', { threadId });
    return paginate(qb, 'm', query, { tenant: workspaceId, route: `threads.${threadId}.messages.index` });
  }

  /**
   * Purges up to `batch` message bodies older than their workspace's `message_body_retention_days`
   * (`defaultDays` when unset): the body becomes null and `body_purged_at` is set. How many.
   */
  async purgeExpiredBodiesAcrossWorkspaces(defaultDays: number, batch: number): Promise<number> {
    const purged = rowsOf(
      await this.unscoped().query(
        `UPDATE messages m SET body = NULL, body_purged_at = now()
         WHERE m.id IN (
           SELECT x.id FROM messages x JOIN workspaces w ON w.id = x.workspace_id
           WHERE x.body IS NOT NULL
             AND x.created_at < now() - make_interval(days =>
               COALESCE((w.config->>'message_body_retention_days')::int, $1))
           LIMIT $2)
         RETURNING m.id`,
        [defaultDays, batch],
      ),
    );
    return purged.length;
  }
}
