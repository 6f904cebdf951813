import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import type { DataSource, Repository } from 'typeorm';
import { paginateSql, type Page, type PageQueryDto, type RawKeyed } from '../../common/http/pagination.js';
import { pgPool, SqlConditions } from '../../database/pg-pool.js';
import { TenantRepository } from '../../common/tenant/tenant.repository.js';
import { Contact } from './entities/contact.entity.js';

export interface ContactListFilter {
  stages?: string[];
  email?: string;
  sendable?: boolean;
  createdAfter?: Date;
  createdBefore?: Date;
  updatedAfter?: Date;
}

export type ContactListRow = Record<string, unknown> & RawKeyed;

const LIST_SELECT = `SELECT id, email, first_name, last_name, company, title, phone, timezone,
  custom_fields, stage, source, suppression_reason, suppressed_at, created_at, updated_at FROM contacts`;

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
  listPage(
    workspaceId: string,
    query: PageQueryDto,
    filter: ContactListFilter,
  ): Promise<Page<ContactListRow>> {
    const where = new SqlConditions().where('workspace_id = ?', workspaceId);
    if (filter.stages !== undefined) where.where('stage = ANY(?)', filter.stages);
    if (filter.email !== undefined) where.where('email = ?', filter.email);
    if (filter.sendable === true) where.where('suppression_reason IS NULL');
    if (filter.sendable === false) where.where('suppression_reason IS NOT NULL');
    if (filter.createdAfter !== undefined) where.where('created_at > ?', filter.createdAfter);
    if (filter.createdBefore !== undefined) where.where('created_at < ?', filter.createdBefore);
    if (filter.updatedAfter !== undefined) where.where('updated_at > ?', filter.updatedAfter);
    return paginateSql<ContactListRow>(pgPool(this.db), LIST_SELECT, where, query, {
      tenant: workspaceId,
      route: 'contacts.index',
    });
  }
}
