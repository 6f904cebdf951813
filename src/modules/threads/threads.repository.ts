import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { TenantRepository } from '../../common/tenant/tenant.repository.js';
import { Message } from './entities/message.entity.js';
import { Thread } from './entities/thread.entity.js';
import { paginate, type Page, type PageQueryDto } from '../../common/http/pagination.js';

@Injectable()
export class ThreadsRepository extends TenantRepository<Thread> {
  constructor(@InjectRepository(Thread) repo: Repository<Thread>) {
    super(repo);
  }

  /** A page of threads, filtered by contact, campaign and inbox. */
  page(
    workspaceId: string,
    query: PageQueryDto,
    filter: { contactId?: number; campaignId?: number; inboxId?: string },
  ): Promise<Page<Thread>> {
    const qb = this.query(workspaceId, 't');
    if (filter.contactId !== undefined)
      qb.andWhere('t.contactId = :contactId', { contactId: filter.contactId });
    if (filter.campaignId !== undefined)
      qb.andWhere('t.campaignId = :campaignId', { campaignId: filter.campaignId });
    if (filter.inboxId !== undefined) qb.andWhere('t.inboxId = :inboxId', { inboxId: filter.inboxId });
    return paginate(qb, 't', query, { tenant: workspaceId, route: 'threads.index' });
  }
}

@Injectable()
export class MessagesRepository extends TenantRepository<Message> {
  constructor(@InjectRepository(Message) repo: Repository<Message>) {
    super(repo);
  }

  /** A page of one thread's messages. */
  pageOfThread(workspaceId: string, threadId: number, query: PageQueryDto): Promise<Page<Message>> {
    const qb = this.query(workspaceId, 'm').andWhere('m.threadId = :threadId', { threadId });
    return paginate(qb, 'm', query, { tenant: workspaceId, route: `threads.${threadId}.messages.index` });
  }
}
