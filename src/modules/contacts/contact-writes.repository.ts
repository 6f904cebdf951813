/**
 * Every write to `contacts` (the contacts module owns the table; other modules call these methods):
 * the upsert's statements (contact-upsert.ts holds its rules: insert the new addresses of a chunk,
 * merge into the existing ones, read back the rest), the suppression list's copy on contacts (the
 * suppressions module's `SUPPRESSED_CONTACTS` port), and the stages the send path and inbound mail
 * move contacts to. Stateless: every method runs in the caller's transaction.
 */
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { rollbackToSavepoint, rowsOf, savepoint } from '../../database/query-rows.js';
import { sqlDomainOf } from '../../common/email/address.js';
import type { SuppressionReason } from '../suppressions/entities/suppression.entity.js';
import type { SuppressedContacts } from '../suppressions/suppressed-contacts.js';
import { SUPPRESSION_LOOKUP_SQL } from '../suppressions/suppressions.repository.js';
import { CUSTOM_FIELDS_MAX_KEYS } from './contact-fields.js';
import { isContactCapError, ROOM_SQL } from './contact-cap.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

/** Merged columns: SQL expression over `c` (current row) and `i.d` (input jsonb). */
const NULLABLE_COLUMNS = ['first_name', 'last_name', 'company', 'title', 'phone', 'timezone'] as const;
const MERGED: Array<[string, string]> = [
  ...NULLABLE_COLUMNS.map((col): [string, string] => [
    col,
    `CASE WHEN i.d ? '${col}' THEN i.d->>'${col}' ELSE c.${col} END`,
  ]),
  ['stage', `COALESCE(i.d->>'stage', c.stage)`],
  [
    'custom_fields',
    `CASE WHEN i.d ? 'custom_fields' THEN jsonb_strip_nulls(c.custom_fields || (i.d->'custom_fields')) ELSE c.custom_fields END`,
  ],
];

const INSERT_SQL = `
  WITH input AS (SELECT d FROM jsonb_array_elements($2::jsonb) AS t(d))
  INSERT INTO contacts (workspace_id, email, first_name, last_name, company, title, phone, timezone,
                        custom_fields, stage, source, suppression_reason, suppressed_at)
  SELECT $1, i.d->>'email', i.d->>'first_name', i.d->>'last_name', i.d->>'company', i.d->>'title',
         i.d->>'phone', i.d->>'timezone',
         jsonb_strip_nulls(COALESCE(i.d->'custom_fields', '{}'::jsonb)),
         COALESCE(i.d->>'stage', 'new'), $3, s.reason, s.created_at
  FROM input i
  LEFT JOIN LATERAL (${SUPPRESSION_LOOKUP_SQL('$1', "(i.d->>'email')")}) s ON true
  ORDER BY i.d->>'email'
  ON CONFLICT (workspace_id, email) DO NOTHING
  RETURNING *`;

const UPDATE_SQL = `
  WITH input AS (SELECT d FROM jsonb_array_elements($2::jsonb) AS t(d))
  UPDATE contacts c SET
    ${MERGED.map(([col, expr]) => `${col} = ${expr}`).join(',\n    ')},
    updated_at = CASE
      WHEN ROW(${MERGED.map(([, expr]) => expr).join(', ')})
           IS DISTINCT FROM ROW(${MERGED.map(([col]) => `c.${col}`).join(', ')})
      THEN now() ELSE c.updated_at END
  FROM input i
  WHERE c.workspace_id = $1 AND c.email = i.d->>'email'
    AND (SELECT count(*) FROM jsonb_object_keys(${MERGED[MERGED.length - 1][1]})) <= ${CUSTOM_FIELDS_MAX_KEYS}
  RETURNING c.*`;

@Injectable()
export class ContactWritesRepository implements SuppressedContacts {
  /** Inserts the addresses of `payload` (a JSON array of rows) not yet in the workspace; the new rows. */
  async insertMissing(
    workspaceId: WorkspaceId,
    payload: string,
    source: string,
    m: EntityManager,
  ): Promise<Array<Record<string, unknown>>> {
    return rowsOf(await m.query(INSERT_SQL, [workspaceId, payload, source]));
  }

  /** Merges `rows` (a JSON array) into the existing contacts of their addresses; the merged rows. */
  async mergeExisting(
    workspaceId: WorkspaceId,
    rows: string,
    m: EntityManager,
  ): Promise<Array<Record<string, unknown>>> {
    return rowsOf(await m.query(UPDATE_SQL, [workspaceId, rows]));
  }

  async findByEmails(
    workspaceId: WorkspaceId,
    emails: string[],
    m: EntityManager,
  ): Promise<Array<Record<string, unknown>>> {
    return rowsOf(
      await m.query(`SELECT * FROM contacts WHERE workspace_id = $1 AND email = ANY($2::text[])`, [
        workspaceId,
        emails,
      ]),
    );
  }

  /** Marks the matching contacts unsendable (those already suppressed keep their first entry). */
  async markSuppressed(
    workspaceId: WorkspaceId,
    match: { column: 'email' | 'domain'; value: string },
    entry: { reason: SuppressionReason; createdAt: Date },
    m: EntityManager,
  ): Promise<number> {
    const where = match.column === 'email' ? 'email = $2' : `${sqlDomainOf('email')} = $2`;
    const updated = rowsOf<{ id: number }>(
      await m.query(
        `UPDATE contacts SET suppression_reason = $3, suppressed_at = $4, updated_at = now()
         WHERE workspace_id = $1 AND ${where} AND suppression_reason IS NULL
         RETURNING id`,
        [workspaceId, match.value, entry.reason, entry.createdAt],
      ),
    );
    return updated.length;
  }

  /** The send path's first step: contacts `new` → `contacted` (any workspaces; each pair its own). */
  async markContactedAcrossWorkspaces(
    contacts: Array<{ workspaceId: WorkspaceId; id: number }>,
    m: EntityManager,
  ): Promise<void> {
    await m.query(
      `UPDATE contacts c SET stage = 'contacted', updated_at = now()
       FROM unnest($1::uuid[], $2::bigint[]) AS x(workspace_id, id)
       WHERE c.workspace_id = x.workspace_id AND c.id = x.id AND c.stage = 'new'`,
      [contacts.map((c) => c.workspaceId), contacts.map((c) => c.id)],
    );
  }

  /**
   * A person a `wrong_person` reply named (CONTRACT §23): whether the address is suppressed, the
   * workspace's contact (if any), and the room left under the plan's contact cap.
   */
  async referralTarget(
    workspaceId: WorkspaceId,
    email: string,
    m: EntityManager,
  ): Promise<{ suppressed: boolean; contact: Record<string, unknown> | null; room: number }> {
    const [s] = rowsOf(
      await m.query(`SELECT 1 FROM (${SUPPRESSION_LOOKUP_SQL('$1', '$2')}) s`, [workspaceId, email]),
    );
    const [contact] = rowsOf(
      await m.query(`SELECT * FROM contacts WHERE workspace_id = $1 AND email = $2`, [workspaceId, email]),
    );
    const [r] = rowsOf<{ room: string | number }>(await m.query(ROOM_SQL, [workspaceId]));
    return { suppressed: s !== undefined, contact: contact ?? null, room: r ? Number(r.room) : 0 };
  }

  /**
   * Inserts the referred person (`source: referral`); the new row, or null when the address exists or
   * the insert would pass the plan's contact cap (another creator took the last room since the caller
   * read it: the insert alone is undone, the caller's transaction goes on).
   */
  async insertReferral(
    workspaceId: WorkspaceId,
    row: {
      email: string;
      first_name: string | null;
      last_name: string | null;
      company: string | null;
      referred_by_contact_id: number;
    },
    m: EntityManager,
  ): Promise<Record<string, unknown> | null> {
    await savepoint(m, 'referral');
    try {
      const [inserted] = rowsOf(
        await m.query(
          `INSERT INTO contacts (workspace_id, email, first_name, last_name, company, custom_fields, stage,
                                 source, referred_by_contact_id)
           VALUES ($1, $2, $3, $4, $5, '{}'::jsonb, 'new', 'referral', $6)
           ON CONFLICT (workspace_id, email) DO NOTHING
           RETURNING *`,
          [workspaceId, row.email, row.first_name, row.last_name, row.company, row.referred_by_contact_id],
        ),
      );
      return inserted ?? null;
    } catch (err) {
      if (!isContactCapError(err)) throw err;
      await rollbackToSavepoint(m, 'referral');
      return null;
    }
  }

  /** A reply arrived: `new|contacted` → `replied`. */
  async markReplied(workspaceId: WorkspaceId, contactId: number, m: EntityManager): Promise<void> {
    await m.query(
      `UPDATE contacts SET stage = 'replied', updated_at = now()
       WHERE workspace_id = $1 AND id = $2 AND stage IN ('new', 'contacted')`,
      [workspaceId, contactId],
    );
  }
}
