/**
 * Contacts of one workspace: keyset lists with whitelisted filters, and the upsert
 * (POST and PATCH both go through `ContactUpsert`, so they follow exactly the same rules).
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { contactCapExceeded, isContactCapError } from './contact-cap.js';
import { ApiError } from '../../common/http/api-error.js';
import type { Page } from '../../common/http/pagination.js';
import { parseTimestamp } from './contact-fields.js';
import { ContactUpsert, upsertRowOf, type ContactUpsertRow } from './contact-upsert.js';
import { contactViewOfListRow, toContactView, type ContactView } from './contact.view.js';
import { ContactsRepository } from './contacts.repository.js';
import {
  parseStageList,
  parseVerificationList,
  type ListContactsQueryDto,
} from './dto/list-contacts-query.dto.js';
import type { CreateContactDto, UpdateContactDto } from './dto/upsert-contact.dto.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

@Injectable()
export class ContactsService {
  constructor(
    private readonly contacts: ContactsRepository,
    @InjectDataSource() private readonly db: DataSource,
    private readonly contactUpsert: ContactUpsert,
  ) {}

  /** One keyset page of contacts, filtered by the whitelisted query parameters. */
  async list(workspaceId: WorkspaceId, query: ListContactsQueryDto): Promise<Page<ContactView>> {
    const page = await this.contacts.listPage(workspaceId, query, {
      stages: query.status !== undefined ? parseStageList(query.status) : undefined,
      email: query.email,
      verification: query.verification !== undefined ? parseVerificationList(query.verification) : undefined,
      sendable: query.sendable === 'true' ? true : query.sendable === 'false' ? false : undefined,
      createdAfter: query.created_after !== undefined ? parseTimestamp(query.created_after) : undefined,
      createdBefore: query.created_before !== undefined ? parseTimestamp(query.created_before) : undefined,
      updatedAfter: query.updated_after !== undefined ? parseTimestamp(query.updated_after) : undefined,
    });
    return { ...page, items: page.items.map(contactViewOfListRow) };
  }

  async show(workspaceId: WorkspaceId, id: number): Promise<ContactView> {
    const contact = await this.contacts.findOne(workspaceId, { id });
    // The same body as a malformed id (IntIdPipe): absent and foreign are indistinguishable.
    if (!contact) throw ApiError.notFound();
    return toContactView(contact);
  }

  /** `POST /contacts`: creates or merges; 200 either way. */
  async store(workspaceId: WorkspaceId, body: CreateContactDto): Promise<ContactView> {
    return this.upsertOne(workspaceId, upsertRowOf(body.email, body));
  }

  /** `PATCH /contacts/{id}`: merges through the same upsert, keyed by the contact's own email. */
  async update(workspaceId: WorkspaceId, id: number, body: UpdateContactDto): Promise<ContactView> {
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
  private async upsertOne(workspaceId: WorkspaceId, row: ContactUpsertRow): Promise<ContactView> {
    let outcome;
    try {
      [outcome] = await this.db.transaction(async (manager) => {
        const outcomes = await this.contactUpsert.upsert(manager, workspaceId, [row], { source: 'api' });
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
