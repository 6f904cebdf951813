import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import type { DataSource, Repository } from 'typeorm';
import { paginateSql, type Page, type PageQueryDto, type RawKeyed } from '../../common/http/pagination.js';
import { pgPool, SqlConditions } from '../../database/pg-pool.js';
import { TenantRepository } from '../../common/tenant/tenant.repository.js';
import { Contact } from './entities/contact.entity.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

export interface ContactListFilter {
  stages?: string[];
  email?: string;
  sendable?: boolean;
  createdAfter?: Date;
  createdBefore?: Date;
  updatedAfter?: Date;
  verification?: string[];
}

export type ContactListRow = Record<string, unknown> & RawKeyed;

const LIST_SELECT = `SELECT id, email, first_name, last_name, company, title, phone, timezone,
  custom_fields, stage, source, suppression_reason, suppressed_at, verification_status, verification_reasons,
  verification_suggestion, verification_checked_at, created_at, updated_at FROM contacts`;

/** The most ids an `updated_after` page query is bounded by (see fewUpdatedSince). */
const UPDATED_CAP = 1000;

/** Contacts, always read and written inside one workspace. */
@Injectable()
export class ContactsRepository extends TenantRepository<Contact> {
  constructor(
    @InjectRepository(Contact) repo: Repository<Contact>,
    @InjectDataSource() private readonly db: DataSource,
  ) {
    super(repo);
  }

  /**
   * One keyset page of the list. Hand-written SQL on the pg pool rather than the query builder: this
   * is the hottest list of the API, and the ORM's query runner and hydration were most of its CPU per
   * request (docs/performance.md). Same index: (workspace_id, created_at, id).
   */
  async listPage(
    workspaceId: WorkspaceId,
    query: PageQueryDto,
    filter: ContactListFilter,
  ): Promise<Page<ContactListRow>> {
    const where = new SqlConditions().where('workspace_id = ?', workspaceId);
    if (filter.stages !== undefined) where.where('stage = ANY(?)', filter.stages);
    if (filter.email !== undefined) where.where('email = ?', filter.email);
    if (filter.sendable === true) where.where('suppression_reason IS NULL');
    if (filter.sendable === false) where.where('suppression_reason IS NOT NULL');
    if (filter.verification !== undefined) where.where('verification_status = ANY(?)', filter.verification);
    if (filter.createdAfter !== undefined) where.where('created_at > ?', filter.createdAfter);
    if (filter.createdBefore !== undefined) where.where('created_at < ?', filter.createdBefore);
    if (filter.updatedAfter !== undefined) {
      where.where('updated_at > ?', filter.updatedAfter);
      const few = await this.fewUpdatedSince(workspaceId, filter.updatedAfter);
      if (few) where.where('id = ANY(?::bigint[])', few);
    }
    return paginateSql<ContactListRow>(pgPool(this.db), LIST_SELECT, where, query, {
      tenant: workspaceId,
      route: 'contacts.index',
    });
  }

  /**
   * `updated_after` is a range on another column than the list order, and the planner judges it by
   * table-wide statistics: when other workspaces were updated recently it expects many matches here
   * and walks this workspace in created_at order looking for them, which reads the whole workspace
   * when only a few of its contacts changed (test/database/list-plans.e2e-spec.ts saw 99,990 rows read for
   * 10). So the matches are counted first, up to UPDATED_CAP, on (workspace_id, updated_at) (an
   * index-only scan of at most that many entries): when there are at most that many, their ids
   * bound the page query (primary-key lookups and a sort of at most UPDATED_CAP rows); when there
   * are more, they are dense enough for the walk. Null means "many".
   */
  private async fewUpdatedSince(workspaceId: WorkspaceId, since: Date): Promise<number[] | null> {
    const { rows } = await pgPool(this.db).query<{ id: number }>(
      `SELECT id FROM contacts WHERE workspace_id = $1 AND updated_at > $2 LIMIT ${UPDATED_CAP + 1}`,
      [workspaceId, since],
    );
    return rows.length > UPDATED_CAP ? null : rows.map((r) => r.id);
  }
}
