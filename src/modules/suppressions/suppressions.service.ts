/**
 * The workspace's suppression list (CONTRACT §4). Entries are only ever added: no route or command
 * removes one. Adding marks matching contacts unsendable in the same transaction.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ApiError } from '../../common/http/api-error.js';
import { paginate, type Page } from '../../common/http/pagination.js';
import type { CreateSuppressionDto, ListSuppressionsQueryDto } from './dto/suppression.dto.js';
import type { Suppression } from './entities/suppression.entity.js';
import { addSuppression, toSuppressionView, type SuppressionView } from './suppression-store.js';
import { SuppressionsRepository } from './suppressions.repository.js';

@Injectable()
export class SuppressionsService {
  constructor(
    private readonly suppressions: SuppressionsRepository,
    @InjectDataSource() private readonly db: DataSource,
  ) {}

  list(workspaceId: string, query: ListSuppressionsQueryDto): Promise<Page<Suppression>> {
    const qb = this.suppressions.query(workspaceId, 's');
    if (query.reason !== undefined) qb.andWhere('s.reason = :reason', { reason: query.reason });
    if (query.email !== undefined) qb.andWhere('s.email = :email', { email: query.email });
    if (query.domain !== undefined) qb.andWhere('s.domain = :domain', { domain: query.domain });
    return paginate(qb, 's', query, { tenant: workspaceId, route: 'suppressions.index' });
  }

  /** Adds a manual entry; an existing entry is returned as it is (`created: false`). */
  async add(
    workspaceId: string,
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
      addSuppression(manager, workspaceId, target, 'manual'),
    );
    return { entry: toSuppressionView(entry), created };
  }
}
