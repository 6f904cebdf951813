import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { TenantRepository } from '../../common/tenant/tenant.repository.js';
import { ImportBatch } from './entities/import-batch.entity.js';
import { paginate, type Page, type PageQueryDto } from '../../common/http/pagination.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

/** Tenant-scoped access to import batches (built on the DataSource so the CLI can use it too). */
@Injectable()
export class ImportsRepository extends TenantRepository<ImportBatch> {
  constructor(@InjectDataSource() db: DataSource) {
    super(db.getRepository(ImportBatch));
  }

  /** A page of the workspace's rows, newest first. */
  page(workspaceId: WorkspaceId, query: PageQueryDto): Promise<Page<ImportBatch>> {
    return paginate(this.query(workspaceId, 'i'), 'i', query, {
      tenant: workspaceId,
      route: 'imports.index',
    });
  }
}
