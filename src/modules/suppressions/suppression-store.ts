/**
 * The suppression list and its denormalised copy on contacts (`suppression_reason`, `suppressed_at`,
 * written through the contacts module's `SuppressedContacts`, suppressed-contacts.ts).
 *
 * Consistency under concurrency: adding an entry takes a per-workspace advisory lock in exclusive
 * mode; inserting contacts takes the same lock in shared mode (see `lockShared`). So a contact
 * inserted concurrently with a new entry either sees the committed entry when it looks the list up, or
 * is already committed when the entry's UPDATE of matching contacts runs. Contact inserts never wait
 * for each other. Every method here must run inside a transaction (pass its manager).
 */
import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { inTransaction } from '../../database/query-rows.js';
import type { Suppression, SuppressionReason } from './entities/suppression.entity.js';
import { SUPPRESSED_CONTACTS, type SuppressedContacts } from './suppressed-contacts.js';
import { SUPPRESSION_LOOKUP_SQL, SuppressionListRepository } from './suppressions.repository.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

export { toSuppressionView, type SuppressionView } from './suppression.view.js';

function assertTransaction(manager: EntityManager, what: string): void {
  if (!inTransaction(manager)) {
    throw new Error(`${what} must run inside a transaction (pass the transaction's EntityManager)`);
  }
}

export type SuppressionTarget = { email: string; domain?: undefined } | { domain: string; email?: undefined };

@Injectable()
export class SuppressionStore {
  constructor(
    private readonly list: SuppressionListRepository,
    @Inject(SUPPRESSED_CONTACTS) private readonly contacts: SuppressedContacts,
  ) {}

  /** Taken by every contact insert: concurrent inserts proceed, a concurrent suppression waits. */
  async lockShared(manager: EntityManager, workspaceId: WorkspaceId): Promise<void> {
    assertTransaction(manager, 'lockSuppressionsShared');
    await this.list.lockShared(workspaceId, manager);
  }

  /**
   * Adds an address or domain to the workspace's list (normalised: trimmed, lower-cased) and marks the
   * matching contacts unsendable, in the caller's transaction. An entry that already exists is returned
   * unchanged (its first reason is kept) with `created: false`. Contacts already suppressed keep the
   * entry that suppressed them first.
   */
  async add(
    manager: EntityManager,
    workspaceId: WorkspaceId,
    target: SuppressionTarget,
    reason: SuppressionReason,
  ): Promise<{ entry: Suppression; created: boolean; contactsSuppressed: number }> {
    assertTransaction(manager, 'addSuppression');
    const email = target.email !== undefined ? target.email.trim().toLowerCase() : null;
    const domain = target.domain !== undefined ? target.domain.trim().toLowerCase().replace(/\.$/, '') : null;
    if ((email === null) === (domain === null) || (email ?? domain) === '') {
      throw new Error('addSuppression needs exactly one of email or domain');
    }
    await this.list.lockExclusive(workspaceId, manager);
    const column = email !== null ? 'email' : 'domain';
    const value = (email ?? domain)!;
    const inserted = await this.list.insertEntry(workspaceId, { email, domain }, reason, manager);
    const entry = inserted ?? (await this.list.findEntry(workspaceId, column, value, manager))!;
    const contactsSuppressed = await this.contacts.markSuppressed(
      workspaceId,
      { column, value },
      entry,
      manager,
    );
    return { entry, created: inserted !== null, contactsSuppressed };
  }

  /**
   * For the sending engine (bounces, unsubscribes, complaints): suppresses one address and marks its
   * contact unsendable, in the caller's transaction. Call it before locking contact rows in that
   * transaction (it takes the workspace's suppression lock, which contact inserts share).
   */
  async suppressAddress(
    manager: EntityManager,
    workspaceId: WorkspaceId,
    email: string,
    reason: SuppressionReason,
  ): Promise<Suppression> {
    return (await this.add(manager, workspaceId, { email }, reason)).entry;
  }
}

export { SUPPRESSION_LOOKUP_SQL };
