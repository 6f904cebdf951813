import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { TenantRepository } from '../../common/tenant/tenant.repository.js';
import { Sequence } from './entities/sequence.entity.js';
import { paginate, type Page, type PageQueryDto } from '../../common/http/pagination.js';

@Injectable()
export class SequencesRepository extends TenantRepository<Sequence> {
  constructor(@InjectRepository(Sequence) repo: Repository<Sequence>) {
    super(repo);
  }

  /** A page of the workspace's rows, newest first. */
  page(workspaceId: string, query: PageQueryDto): Promise<Page<Sequence>> {
    return paginate(this.query(workspaceId, 's'), 's', query, {
      tenant: workspaceId,
      route: 'sequences.index',
    });
  }
}
