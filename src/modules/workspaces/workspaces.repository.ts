import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { paginate, type Page, type PageQueryDto } from '../../common/http/pagination.js';
import { Organization } from '../organizations/entities/organization.entity.js';
import { Workspace } from './entities/workspace.entity.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

/**
 * Workspaces, scoped by their organization (a workspace is the tenant; its organization owns it).
 * `findById` is the one lookup by id alone, for callers that already hold a credential for it.
 */
@Injectable()
export class WorkspacesRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  private repo(manager?: EntityManager) {
    return (manager ?? this.db.manager).getRepository(Workspace);
  }

  /** The organization row, locked for the rest of the transaction (the plan's workspace cap). */
  lockOrganization(organizationId: string, manager: EntityManager): Promise<Organization | null> {
    return manager
      .getRepository(Organization)
      .findOne({ where: { id: organizationId }, lock: { mode: 'pessimistic_write' } });
  }

  countInOrganization(organizationId: string, manager?: EntityManager): Promise<number> {
    return this.repo(manager).count({ where: { organizationId } });
  }

  insert(organizationId: string, values: Partial<Workspace>, manager?: EntityManager): Promise<Workspace> {
    const repo = this.repo(manager);
    return repo.save(repo.create({ ...values, organizationId }));
  }

  findInOrganization(
    organizationId: string,
    id: WorkspaceId,
    manager?: EntityManager,
    lock = false,
  ): Promise<Workspace | null> {
    return this.repo(manager).findOne({
      where: { id, organizationId },
      ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
  }

  /** A page of the organization's workspaces (newest first, signed cursor bound to the organization). */
  page(organizationId: string, query: PageQueryDto): Promise<Page<Workspace>> {
    const qb = this.repo().createQueryBuilder('w').where('w.organizationId = :org', { org: organizationId });
    return paginate(qb, 'w', query, { tenant: organizationId, route: 'provisioning.workspaces.index' });
  }

  findById(workspaceId: WorkspaceId, manager?: EntityManager): Promise<Workspace | null> {
    return this.repo(manager).findOne({ where: { id: workspaceId } });
  }

  save(organizationId: string, workspace: Workspace, manager?: EntityManager): Promise<Workspace> {
    if (workspace.organizationId !== organizationId) throw new Error('workspace of another organization');
    return this.repo(manager).save(workspace);
  }
}
