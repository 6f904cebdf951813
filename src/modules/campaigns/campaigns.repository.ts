import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { TenantRepository } from '../../common/tenant/tenant.repository.js';
import { Campaign } from './entities/campaign.entity.js';
import { paginate, type Page, type PageQueryDto } from '../../common/http/pagination.js';
import type { EntityManager } from 'typeorm';

@Injectable()
export class CampaignsRepository extends TenantRepository<Campaign> {
  constructor(@InjectRepository(Campaign) repo: Repository<Campaign>) {
    super(repo);
  }

  /** A page of the workspace's rows, newest first. */
  page(workspaceId: string, query: PageQueryDto): Promise<Page<Campaign>> {
    return paginate(this.query(workspaceId, 'c'), 'c', query, {
      tenant: workspaceId,
      route: 'campaigns.index',
    });
  }

  /** The campaign, share-locked for the rest of the transaction (enrolling: it cannot change status meanwhile). */
  findForShare(workspaceId: string, id: number, manager: EntityManager): Promise<Campaign | null> {
    return this.scope(workspaceId, manager).findOneForShare({ id });
  }
}
