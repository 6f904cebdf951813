import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import { sqlDomainOf } from '../../common/email/address.js';
import { TenantRepository } from '../../common/tenant/tenant.repository.js';
import { Suppression, type SuppressionReason } from './entities/suppression.entity.js';
import { paginate, type Page, type PageQueryDto } from '../../common/http/pagination.js';
import { Brackets } from 'typeorm';
import { asWorkspaceId, type WorkspaceId } from '../../common/tenant/workspace-id.js';

@Injectable()
export class SuppressionsRepository extends TenantRepository<Suppression> {
  constructor(@InjectRepository(Suppression) repo: Repository<Suppression>) {
    super(repo);
  }

  /** A page of the list, filtered by reason, address or domain. */
  page(
    workspaceId: WorkspaceId,
    query: PageQueryDto,
    filter: { reason?: string; email?: string; domain?: string },
  ): Promise<Page<Suppression>> {
    const qb = this.query(workspaceId, 's');
    if (filter.reason !== undefined) qb.andWhere('s.reason = :reason', { reason: filter.reason });
    if (filter.email !== undefined) qb.andWhere('s.email = :email', { email: filter.email });
    if (filter.domain !== undefined) qb.andWhere('s.domain = :domain', { domain: filter.domain });
    return paginate(qb, 's', query, { tenant: workspaceId, route: 'suppressions.index' });
  }

  /** Whether the list holds the address itself or its domain. */
  isListed(workspaceId: WorkspaceId, email: string, manager?: EntityManager): Promise<boolean> {
    const domain = email.slice(email.lastIndexOf('@') + 1);
    return this.query(workspaceId, 's', manager)
      .andWhere(
        new Brackets((w) => {
          w.where('s.email = :email', { email }).orWhere('s.domain = :domain', { domain });
        }),
      )
      .getExists();
  }
}

const lockKey = (workspaceId: WorkspaceId): string => `suppressions:${workspaceId}`;

function suppressionFromRow(row: Record<string, unknown>): Suppression {
  return {
    id: Number(row.id),
    workspaceId: asWorkspaceId(row.workspace_id as string),
    email: (row.email as string | null) ?? null,
    domain: (row.domain as string | null) ?? null,
    reason: row.reason as SuppressionReason,
    createdAt: row.created_at instanceof Date ? row.created_at : new Date(String(row.created_at)),
  };
}

/** The earliest entry matching `email` (by address or by its domain), for a contact being inserted. */
export const SUPPRESSION_LOOKUP_SQL = (workspaceParam: string, emailExpr: string): string =>
  `SELECT s.reason, s.created_at FROM suppressions s
   WHERE s.workspace_id = ${workspaceParam}
     AND (s.email = ${emailExpr} OR s.domain = ${sqlDomainOf(emailExpr)})
   ORDER BY s.created_at, s.id LIMIT 1`;

/**
 * The statements of adding to the list (suppression-store.ts holds the rules: normalising, the lock
 * order). Stateless: every method runs in the caller's transaction.
 */
@Injectable()
export class SuppressionListRepository {
  /** Taken by every contact insert: concurrent inserts proceed, a concurrent suppression waits. */
  async lockShared(workspaceId: WorkspaceId, manager: EntityManager): Promise<void> {
    await manager.query('SELECT pg_advisory_xact_lock_shared(hashtextextended($1, 0))', [
      lockKey(workspaceId),
    ]);
  }

  async lockExclusive(workspaceId: WorkspaceId, manager: EntityManager): Promise<void> {
    await manager.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [lockKey(workspaceId)]);
  }

  /** Inserts the entry; null when the address or domain is already listed. */
  async insertEntry(
    workspaceId: WorkspaceId,
    target: { email: string | null; domain: string | null },
    reason: SuppressionReason,
    manager: EntityManager,
  ): Promise<Suppression | null> {
    const column = target.email !== null ? 'email' : 'domain';
    const inserted = (await manager.query(
      `INSERT INTO suppressions (workspace_id, email, domain, reason)
       VALUES ($1, $2, $3, $4)
       ON CONFLICT (workspace_id, ${column}) WHERE ${column} IS NOT NULL DO NOTHING
       RETURNING *`,
      [workspaceId, target.email, target.domain, reason],
    )) as Array<Record<string, unknown>>;
    return inserted[0] ? suppressionFromRow(inserted[0]) : null;
  }

  async findEntry(
    workspaceId: WorkspaceId,
    column: 'email' | 'domain',
    value: string,
    manager: EntityManager,
  ): Promise<Suppression | null> {
    const existing = (await manager.query(
      `SELECT * FROM suppressions WHERE workspace_id = $1 AND ${column} = $2`,
      [workspaceId, value],
    )) as Array<Record<string, unknown>>;
    return existing[0] ? suppressionFromRow(existing[0]) : null;
  }
}
