import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import { TenantRepository } from '../../common/tenant/tenant.repository.js';
import { Sequence } from './entities/sequence.entity.js';
import { paginate, type Page, type PageQueryDto } from '../../common/http/pagination.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

@Injectable()
export class SequencesRepository extends TenantRepository<Sequence> {
  constructor(@InjectRepository(Sequence) repo: Repository<Sequence>) {
    super(repo);
  }

  /** Stores a change of name, steps (a draft only) or archiving. */
  async applyChanges(
    workspaceId: WorkspaceId,
    id: number,
    patch: Pick<Partial<Sequence>, 'name' | 'steps' | 'status'>,
    manager: EntityManager,
  ): Promise<void> {
    await this.scope(workspaceId, manager).update({ id }, patch);
  }

  /** A draft becomes `published` at `at`. */
  async markPublished(workspaceId: WorkspaceId, id: number, at: Date, manager: EntityManager): Promise<void> {
    await this.scope(workspaceId, manager).update({ id }, { status: 'published', publishedAt: at });
  }

  /** A page of the workspace's rows, newest first. */
  page(workspaceId: WorkspaceId, query: PageQueryDto): Promise<Page<Sequence>> {
    return paginate(this.query(workspaceId, 's'), 's', query, {
      tenant: workspaceId,
      route: 'sequences.index',
    });
  }
}
