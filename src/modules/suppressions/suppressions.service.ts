/**
 * The workspace's suppression list. Entries are only ever added: no route or command
 * removes one. Adding marks matching contacts unsendable in the same transaction.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ApiError } from '../../common/http/api-error.js';
import type { Page } from '../../common/http/pagination.js';
import type { CreateSuppressionDto, ListSuppressionsQueryDto } from './dto/suppression.dto.js';
import type { Suppression } from './entities/suppression.entity.js';
import { SuppressionStore, toSuppressionView, type SuppressionView } from './suppression-store.js';
import { SuppressionsRepository } from './suppressions.repository.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

@Injectable()
export class SuppressionsService {
  constructor(
    private readonly suppressions: SuppressionsRepository,
    @InjectDataSource() private readonly db: DataSource,
    private readonly store: SuppressionStore,
  ) {}

  list(workspaceId: WorkspaceId, query: ListSuppressionsQueryDto): Promise<Page<Suppression>> {
    return this.suppressions.page(workspaceId, query, {
      reason: query.reason,
      email: query.email,
      domain: query.domain,
    });
  }

  /** Adds a manual entry; an existing entry is returned as it is (`created: false`). */
  async add(
    workspaceId: WorkspaceId,
    body: CreateSuppressionDto,
  ): Promise<{ entry: SuppressionView; created: boolean }> {
    if (body.email !== undefined && body.domain !== undefined) {
      throw ApiError.validation('domain', 'Send either email or domain, not both');
    }
    if (body.email === undefined && body.domain === undefined) {
      throw ApiError.validation('email', 'email or domain is required');
    }
    const target = body.email !== undefined ? { email: body.email } : { domain: body.domain! };
    const { entry, created } = await this.db.transaction((manager) =>
      this.store.add(manager, workspaceId, target, 'manual'),
    );
    return { entry: toSuppressionView(entry), created };
  }
}
