/**
 * Contacts of one workspace (CONTRACT §4): keyset lists with whitelisted filters, and the upsert
 * (POST and PATCH both go through `upsertContacts`, so they follow exactly the same rules).
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ApiError } from '../../common/http/api-error.js';
import { paginate, type Page } from '../../common/http/pagination.js';
import { parseTimestamp } from './contact-fields.js';
import { upsertContacts, type ContactUpsertRow } from './contact-upsert.js';
import { toContactView, type ContactView } from './contact-view.js';
import { ContactsRepository } from './contacts.repository.js';
import { parseStageList, type ListContactsQueryDto } from './dto/list-contacts-query.dto.js';
import type { ContactFieldsDto, CreateContactDto, UpdateContactDto } from './dto/upsert-contact.dto.js';
import type { Contact } from './entities/contact.entity.js';

const FIELD_KEYS = [
  'first_name',
  'last_name',
  'company',
  'title',
  'phone',
  'timezone',
  'stage',
  'custom_fields',
] as const;

function toRow(email: string, body: ContactFieldsDto & { first_name?: string | null }): ContactUpsertRow {
  const row: ContactUpsertRow = { email };
  for (const key of FIELD_KEYS) {
    if (body[key] !== undefined) (row as unknown as Record<string, unknown>)[key] = body[key];
  }
  return row;
}

@Injectable()
export class ContactsService {
  constructor(
    private readonly contacts: ContactsRepository,
    @InjectDataSource() private readonly db: DataSource,
  ) {}

  async list(workspaceId: string, query: ListContactsQueryDto): Promise<Page<Contact>> {
    const qb = this.contacts.query(workspaceId, 'c');
    if (query.status !== undefined)
      qb.andWhere('c.stage IN (:...stages)', { stages: parseStageList(query.status) });
    if (query.email !== undefined) qb.andWhere('c.email = :email', { email: query.email });
    if (query.sendable === 'true') qb.andWhere('c.suppressionReason IS NULL');
    if (query.sendable === 'false') qb.andWhere('c.suppressionReason IS NOT NULL');
    if (query.created_after !== undefined)
      qb.andWhere('c.createdAt > :createdAfter', { createdAfter: parseTimestamp(query.created_after) });
    if (query.created_before !== undefined)
      qb.andWhere('c.createdAt < :createdBefore', { createdBefore: parseTimestamp(query.created_before) });
    if (query.updated_after !== undefined)
      qb.andWhere('c.updatedAt > :updatedAfter', { updatedAfter: parseTimestamp(query.updated_after) });
    return paginate(qb, 'c', query, { tenant: workspaceId, route: 'contacts.index' });
  }

  async show(workspaceId: string, id: number): Promise<ContactView> {
    const contact = await this.contacts.findOne(workspaceId, { id });
    // The same body as a malformed id (IntIdPipe): absent and foreign are indistinguishable.
    if (!contact) throw ApiError.notFound();
    return toContactView(contact);
  }

  /** `POST /contacts`: creates or merges; 200 either way. */
  async store(workspaceId: string, body: CreateContactDto): Promise<ContactView> {
    return this.upsertOne(workspaceId, toRow(body.email, body));
  }

  /** `PATCH /contacts/{id}`: merges through the same upsert, keyed by the contact's own email. */
  async update(workspaceId: string, id: number, body: UpdateContactDto): Promise<ContactView> {
    const contact = await this.contacts.findOne(workspaceId, { id });
    if (!contact) throw ApiError.notFound();
    if (body.email !== undefined && body.email !== contact.email) {
      throw ApiError.validation('email', 'email is the identity of a contact and cannot be changed');
    }
    return this.upsertOne(workspaceId, toRow(contact.email, body));
  }

  private async upsertOne(workspaceId: string, row: ContactUpsertRow): Promise<ContactView> {
    const [outcome] = await this.db.transaction(async (manager) => {
      const outcomes = await upsertContacts(manager, workspaceId, [row], { source: 'api' });
      const first = outcomes[0];
      // Throwing rolls the transaction back: nothing of a refused merge is written.
      if (first.status === 'invalid') throw ApiError.validation(first.field, first.message);
      return outcomes;
    });
    return toContactView(outcome.contact);
  }
}
