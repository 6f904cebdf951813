/**
 * Contacts of one workspace (CONTRACT §4): keyset lists with whitelisted filters, and the upsert
 * (POST and PATCH both go through `upsertContacts`, so they follow exactly the same rules).
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { contactCapExceeded, isContactCapError } from './contact-cap.js';
import { ApiError } from '../../common/http/api-error.js';
import { paginateSql, type Page, type RawKeyed } from '../../common/http/pagination.js';
import { pgPool, SqlConditions } from '../../database/pg-pool.js';
import { parseTimestamp } from './contact-fields.js';
import { upsertContacts, upsertRowOf, type ContactUpsertRow } from './contact-upsert.js';
import { contactViewOfListRow, toContactView, type ContactView } from './contact-view.js';
import { ContactsRepository } from './contacts.repository.js';
import { parseStageList, type ListContactsQueryDto } from './dto/list-contacts-query.dto.js';
import type { CreateContactDto, UpdateContactDto } from './dto/upsert-contact.dto.js';

const LIST_SELECT = `SELECT id, email, first_name, last_name, company, title, phone, timezone,
  custom_fields, stage, source, suppression_reason, suppressed_at, created_at, updated_at FROM contacts`;

@Injectable()
export class ContactsService {
  constructor(
    private readonly contacts: ContactsRepository,
    @InjectDataSource() private readonly db: DataSource,
  ) {}

  /**
   * One keyset page of contacts. Hand-written SQL on the pg pool rather than the query builder: this is
   * the hottest list of the API, and the ORM's query runner and hydration were most of its CPU per
   * request (bench/contacts.mjs). Same index: (workspace_id, created_at, id).
   */
  async list(workspaceId: string, query: ListContactsQueryDto): Promise<Page<ContactView>> {
    const where = new SqlConditions().where('workspace_id = ?', workspaceId);
    if (query.status !== undefined) where.where('stage = ANY(?)', parseStageList(query.status));
    if (query.email !== undefined) where.where('email = ?', query.email);
    if (query.sendable === 'true') where.where('suppression_reason IS NULL');
    if (query.sendable === 'false') where.where('suppression_reason IS NOT NULL');
    if (query.created_after !== undefined) where.where('created_at > ?', parseTimestamp(query.created_after));
    if (query.created_before !== undefined)
      where.where('created_at < ?', parseTimestamp(query.created_before));
    if (query.updated_after !== undefined) where.where('updated_at > ?', parseTimestamp(query.updated_after));
    const page = await paginateSql<Record<string, unknown> & RawKeyed>(
      pgPool(this.db),
      LIST_SELECT,
      where,
      query,
      { tenant: workspaceId, route: 'contacts.index' },
    );
    return { ...page, items: page.items.map(contactViewOfListRow) };
  }

  async show(workspaceId: string, id: number): Promise<ContactView> {
    const contact = await this.contacts.findOne(workspaceId, { id });
    // The same body as a malformed id (IntIdPipe): absent and foreign are indistinguishable.
    if (!contact) throw ApiError.notFound();
    return toContactView(contact);
  }

  /** `POST /contacts`: creates or merges; 200 either way. */
  async store(workspaceId: string, body: CreateContactDto): Promise<ContactView> {
    return this.upsertOne(workspaceId, upsertRowOf(body.email, body));
  }

  /** `PATCH /contacts/{id}`: merges through the same upsert, keyed by the contact's own email. */
  async update(workspaceId: string, id: number, body: UpdateContactDto): Promise<ContactView> {
    const contact = await this.contacts.findOne(workspaceId, { id });
    if (!contact) throw ApiError.notFound();
    if (body.email !== undefined && body.email !== contact.email) {
      throw ApiError.validation('email', 'email is the identity of a contact and cannot be changed');
    }
    return this.upsertOne(workspaceId, upsertRowOf(contact.email, body));
  }

  /**
   * A create beyond the plan's max_contacts_per_workspace → 403 plan_limit_exceeded: the insert
   * trigger refuses it atomically (contact-cap.ts); a merge inserts nothing and is always allowed.
   */
  private async upsertOne(workspaceId: string, row: ContactUpsertRow): Promise<ContactView> {
    let outcome;
    try {
      [outcome] = await this.db.transaction(async (manager) => {
        const outcomes = await upsertContacts(manager, workspaceId, [row], { source: 'api' });
        const first = outcomes[0];
        // Throwing rolls the transaction back: nothing of a refused merge is written.
        if (first.status === 'invalid') throw ApiError.validation(first.field, first.message);
        return outcomes;
      });
    } catch (err) {
      if (isContactCapError(err)) throw contactCapExceeded();
      throw err;
    }
    return toContactView(outcome.contact);
  }
}
