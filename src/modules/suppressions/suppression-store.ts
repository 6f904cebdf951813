/**
 * The suppression list and its denormalised copy on contacts (`suppression_reason`, `suppressed_at`).
 *
 * Consistency under concurrency: adding an entry takes a per-workspace advisory lock in exclusive
 * mode; inserting contacts takes the same lock in shared mode (see `lockSuppressionsShared`). So a
 * contact inserted concurrently with a new entry either sees the committed entry when it looks the
 * list up, or is already committed when the entry's UPDATE of matching contacts runs. Contact inserts
 * never wait for each other. Every function here must run inside a transaction (pass its manager).
 */
import type { EntityManager } from 'typeorm';
import { rowsOf } from '../../database/query-rows.js';
import { sqlDomainOf } from '../contacts/sql-rows.js';
import type { Suppression, SuppressionReason } from './entities/suppression.entity.js';

const lockKey = (workspaceId: string): string => `suppressions:${workspaceId}`;

function assertTransaction(manager: EntityManager, what: string): void {
  if (!manager.queryRunner?.isTransactionActive) {
    throw new Error(`${what} must run inside a transaction (pass the transaction's EntityManager)`);
  }
}

/** Taken by every contact insert: concurrent inserts proceed, a concurrent suppression waits. */
export async function lockSuppressionsShared(manager: EntityManager, workspaceId: string): Promise<void> {
  assertTransaction(manager, 'lockSuppressionsShared');
  await manager.query('SELECT pg_advisory_xact_lock_shared(hashtextextended($1, 0))', [lockKey(workspaceId)]);
}

async function lockSuppressionsExclusive(manager: EntityManager, workspaceId: string): Promise<void> {
  await manager.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [lockKey(workspaceId)]);
}

export type SuppressionTarget = { email: string; domain?: undefined } | { domain: string; email?: undefined };

export interface SuppressionView {
  id: number;
  email: string | null;
  domain: string | null;
  reason: SuppressionReason;
  created_at: string;
}

export const toSuppressionView = (s: Suppression): SuppressionView => ({
  id: s.id,
  email: s.email,
  domain: s.domain,
  reason: s.reason,
  created_at: s.createdAt.toISOString(),
});

function suppressionFromRow(row: Record<string, unknown>): Suppression {
  return {
    id: Number(row.id),
    workspaceId: row.workspace_id as string,
    email: (row.email as string | null) ?? null,
    domain: (row.domain as string | null) ?? null,
    reason: row.reason as SuppressionReason,
    createdAt: row.created_at instanceof Date ? row.created_at : new Date(String(row.created_at)),
  };
}

/**
 * Adds an address or domain to the workspace's list (normalised: trimmed, lower-cased) and marks the
 * matching contacts unsendable, in the caller's transaction. An entry that already exists is returned
 * unchanged (its first reason is kept) with `created: false`. Contacts already suppressed keep the
 * entry that suppressed them first.
 */
export async function addSuppression(
  manager: EntityManager,
  workspaceId: string,
  target: SuppressionTarget,
  reason: SuppressionReason,
): Promise<{ entry: Suppression; created: boolean; contactsSuppressed: number }> {
  assertTransaction(manager, 'addSuppression');
  const email = target.email !== undefined ? target.email.trim().toLowerCase() : null;
  const domain = target.domain !== undefined ? target.domain.trim().toLowerCase().replace(/\.$/, '') : null;
  if ((email === null) === (domain === null) || (email ?? domain) === '') {
    throw new Error('addSuppression needs exactly one of email or domain');
  }
  await lockSuppressionsExclusive(manager, workspaceId);
  const column = email !== null ? 'email' : 'domain';
  const value = (email ?? domain)!;
  const inserted = (await manager.query(
    `INSERT INTO suppressions (workspace_id, email, domain, reason)
     VALUES ($1, $2, $3, $4)
     ON CONFLICT (workspace_id, ${column}) WHERE ${column} IS NOT NULL DO NOTHING
     RETURNING *`,
    [workspaceId, email, domain, reason],
  )) as Array<Record<string, unknown>>;
  let row = inserted[0];
  if (!row) {
    const existing = (await manager.query(
      `SELECT * FROM suppressions WHERE workspace_id = $1 AND ${column} = $2`,
      [workspaceId, value],
    )) as Array<Record<string, unknown>>;
    row = existing[0];
  }
  const entry = suppressionFromRow(row);
  const match = email !== null ? 'email = $2' : `${sqlDomainOf('email')} = $2`;
  const updated = rowsOf<{ id: number }>(
    await manager.query(
      `UPDATE contacts SET suppression_reason = $3, suppressed_at = $4, updated_at = now()
     WHERE workspace_id = $1 AND ${match} AND suppression_reason IS NULL
     RETURNING id`,
      [workspaceId, value, entry.reason, entry.createdAt],
    ),
  );
  return { entry, created: inserted.length > 0, contactsSuppressed: updated.length };
}

/**
 * For the sending engine (bounces, unsubscribes, complaints): suppresses one address and marks its
 * contact unsendable, in the caller's transaction. Call it before locking contact rows in that
 * transaction (it takes the workspace's suppression lock, which contact inserts share).
 */
export async function suppressAddress(
  manager: EntityManager,
  workspaceId: string,
  email: string,
  reason: SuppressionReason,
): Promise<Suppression> {
  return (await addSuppression(manager, workspaceId, { email }, reason)).entry;
}

/** The earliest entry matching `email` (by address or by its domain), for a contact being inserted. */
export const SUPPRESSION_LOOKUP_SQL = (workspaceParam: string, emailExpr: string): string =>
  `SELECT s.reason, s.created_at FROM suppressions s
   WHERE s.workspace_id = ${workspaceParam}
     AND (s.email = ${emailExpr} OR s.domain = ${sqlDomainOf(emailExpr)})
   ORDER BY s.created_at, s.id LIMIT 1`;
