import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import { paginate, type Page, type PageQueryDto } from '../../common/http/pagination.js';
import { TenantRepository } from '../../common/tenant/tenant.repository.js';
import { Workspace } from '../workspaces/entities/workspace.entity.js';
import { Inbox } from './entities/inbox.entity.js';

@Injectable()
export class InboxesRepository extends TenantRepository<Inbox> {
  constructor(@InjectRepository(Inbox) repo: Repository<Inbox>) {
    super(repo);
  }

  /** The repository bound to a transaction (or the DataSource's manager), for code outside Nest's DI. */
  static for(manager: EntityManager): InboxesRepository {
    return new InboxesRepository(manager.getRepository(Inbox));
  }

  page(workspaceId: string, query: PageQueryDto): Promise<Page<Inbox>> {
    return paginate(this.query(workspaceId, 'i'), 'i', query, {
      tenant: workspaceId,
      route: 'inboxes.index',
    });
  }

  /** The workspace row, locked for the rest of the transaction (connecting an inbox). */
  lockWorkspace(workspaceId: string, manager: EntityManager): Promise<Workspace | null> {
    return manager
      .getRepository(Workspace)
      .findOne({ where: { id: workspaceId }, lock: { mode: 'pessimistic_write' } });
  }

  /** `POST /inbound/{inbox_id}` knows only the inbox id until its secret is checked. */
  findByIdAcrossWorkspaces(inboxId: string, manager?: EntityManager): Promise<Inbox | null> {
    return this.unscoped(manager).findOne({ where: { id: inboxId } });
  }
}
