/**
 * The address verdict columns of `contacts` (CONTRACT §24), written for the verification module:
 * the background worker's claim of due contacts, verdicts, re-checks asked through the API and the
 * hard bounce's `invalid`. A verdict does not move `updated_at` (a contact's own fields did not
 * change; `verification.checked_at` says when it was checked).
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { pgPool, SqlConditions } from '../../database/pg-pool.js';
import { rows } from '../../database/query-rows.js';
import { asWorkspaceId, type WorkspaceId } from '../../common/tenant/workspace-id.js';
import type { VerificationReason, VerificationStatus } from './entities/contact.entity.js';
import type { ContactListFilter } from './contacts.repository.js';

export interface ClaimedForVerification {
  id: number;
  workspaceId: WorkspaceId;
  email: string;
  /** The claim's token: a verdict is written only while the row still carries it. */
  lease: Date;
}

export interface VerdictWrite {
  workspaceId: WorkspaceId;
  id: number;
  status: Exclude<VerificationStatus, 'pending'>;
  reasons: VerificationReason[];
  suggestion: string | null;
  /** When to check again (an `unknown` verdict), or null. */
  nextDueAt: Date | null;
  /** The claim this verdict ends, or null for a check outside a claim (the verify route). */
  lease: Date | null;
}

/** The rows a statement touched (pg's `rowCount`, which the pool's narrow type leaves out). */
const rowCount = (result: unknown): number => (result as { rowCount?: number | null }).rowCount ?? 0;

@Injectable()
export class ContactVerificationRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Up to `limit` contacts whose check is due, oldest first, across workspaces: their due time moves
   * `leaseSeconds` ahead (the claim; a worker that dies leaves them due again then). SKIP LOCKED: two
   * workers never claim the same contact.
   */
  async claimDueAcrossWorkspaces(limit: number, leaseSeconds: number): Promise<ClaimedForVerification[]> {
    const found = await pgPool(this.db).query<Record<string, unknown>>(
      `UPDATE contacts c SET verification_due_at = now() + make_interval(secs => $2)
       FROM (SELECT id FROM contacts WHERE verification_due_at <= now() AND verification_bounced_at IS NULL
             ORDER BY verification_due_at LIMIT $1 FOR UPDATE SKIP LOCKED) due
       WHERE c.id = due.id
       RETURNING c.id, c.workspace_id, c.email, c.verification_due_at`,
      [limit, leaseSeconds],
    );
    return found.rows.map((r) => ({
      id: Number(r.id),
      workspaceId: asWorkspaceId(r.workspace_id as string),
      email: r.email as string,
      lease: new Date(r.verification_due_at as string),
    }));
  }

  /**
   * Verdicts of many contacts in one statement; a claimed one only while it still carries its lease,
   * none over a hard bounce's verdict (`verification_bounced_at`: the bounce is stronger evidence than
   * any check, and may have landed while the check ran).
   */
  async saveVerdictsAcrossWorkspaces(verdicts: VerdictWrite[]): Promise<number> {
    if (verdicts.length === 0) return 0;
    const result = await pgPool(this.db).query(
      `UPDATE contacts c SET verification_status = v.status, verification_reasons = v.reasons::text[],
         verification_suggestion = v.suggestion, verification_checked_at = now(), verification_due_at = v.next
       FROM (SELECT * FROM unnest($1::uuid[], $2::bigint[], $3::text[], $4::text[], $5::text[],
               $6::timestamptz[], $7::timestamptz[]) AS x(ws, id, status, reasons, suggestion, next, lease)) v
       WHERE c.workspace_id = v.ws AND c.id = v.id AND c.verification_bounced_at IS NULL
         AND (v.lease IS NULL OR c.verification_due_at = v.lease)`,
      [
        verdicts.map((v) => v.workspaceId),
        verdicts.map((v) => v.id),
        verdicts.map((v) => v.status),
        // A text[] per row travels as its literal ('{a,b}'): unnest cannot take a 2-D array of ragged rows.
        verdicts.map((v) => `{${v.reasons.join(',')}}`),
        verdicts.map((v) => v.suggestion),
        verdicts.map((v) => v.nextDueAt),
        verdicts.map((v) => v.lease),
      ],
    );
    return rowCount(result);
  }

  /** One contact's address for a check asked through the API, and whether a hard bounce settled its verdict. */
  async addressOf(workspaceId: WorkspaceId, id: number): Promise<{ email: string; bounced: boolean } | null> {
    const found = await pgPool(this.db).query<{ email: string; bounced: boolean }>(
      'SELECT email, verification_bounced_at IS NOT NULL AS bounced FROM contacts WHERE workspace_id = $1 AND id = $2',
      [workspaceId, id],
    );
    return found.rows[0] ?? null;
  }

  /**
   * Contacts by id made due now (the ones of the workspace whose verdict no hard bounce settled; others
   * are ignored); how many.
   */
  async requeueIds(workspaceId: WorkspaceId, ids: number[]): Promise<number> {
    const result = await pgPool(this.db).query(
      `UPDATE contacts SET verification_due_at = now()
       WHERE workspace_id = $1 AND id = ANY($2::bigint[]) AND verification_bounced_at IS NULL`,
      [workspaceId, ids],
    );
    return rowCount(result);
  }

  /** Every contact the list filters select made due now (a hard bounce's verdict aside); how many. */
  async requeueMatching(workspaceId: WorkspaceId, filter: ContactListFilter): Promise<number> {
    const where = new SqlConditions()
      .where('workspace_id = ?', workspaceId)
      .where('verification_bounced_at IS NULL');
    if (filter.stages !== undefined) where.where('stage = ANY(?)', filter.stages);
    if (filter.email !== undefined) where.where('email = ?', filter.email);
    if (filter.verification !== undefined) where.where('verification_status = ANY(?)', filter.verification);
    if (filter.sendable === true) where.where('suppression_reason IS NULL');
    if (filter.sendable === false) where.where('suppression_reason IS NOT NULL');
    if (filter.createdAfter !== undefined) where.where('created_at > ?', filter.createdAfter);
    if (filter.createdBefore !== undefined) where.where('created_at < ?', filter.createdBefore);
    if (filter.updatedAfter !== undefined) where.where('updated_at > ?', filter.updatedAfter);
    const result = await pgPool(this.db).query(
      `UPDATE contacts SET verification_due_at = now() ${where.toSql()}`,
      where.params,
    );
    return rowCount(result);
  }

  /**
   * A hard bounce (§18): the address is `invalid` with `mailbox_unknown`, in the caller's transaction,
   * and stays so (`verification_bounced_at`): no later check replaces a bounce's verdict.
   */
  async markHardBounced(workspaceId: WorkspaceId, contactId: number, manager: EntityManager): Promise<void> {
    await rows(
      manager,
      `UPDATE contacts SET verification_status = 'invalid', verification_reasons = ARRAY['mailbox_unknown'],
         verification_suggestion = NULL, verification_checked_at = now(), verification_due_at = NULL,
         verification_bounced_at = now()
       WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, contactId],
    );
  }
}
