/**
 * The suppression list's copy on contacts (`suppression_reason`, `suppressed_at`) is written by the
 * contacts module, which owns the table: the suppression store calls this port in the transaction that
 * adds an entry, under the list's exclusive lock. The contacts module provides it
 * (`ContactSuppressionModule`, contacts/contact-suppression.module.ts, global), so suppressions never
 * import contacts (contacts import suppressions).
 */
import type { EntityManager } from 'typeorm';
import type { SuppressionReason } from './entities/suppression.entity.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

export interface SuppressedContacts {
  /**
   * Marks the contacts matching the address or domain unsendable with the entry's reason and time
   * (those already suppressed keep their first entry); how many changed.
   */
  markSuppressed(
    workspaceId: WorkspaceId,
    match: { column: 'email' | 'domain'; value: string },
    entry: { reason: SuppressionReason; createdAt: Date },
    manager: EntityManager,
  ): Promise<number>;
}

export const SUPPRESSED_CONTACTS = Symbol('SUPPRESSED_CONTACTS');
