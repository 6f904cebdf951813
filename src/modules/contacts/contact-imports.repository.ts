/**
 * The contacts side of an import chunk (the contacts module owns `contacts`; the imports module's
 * runner calls these in its chunk's transaction, after it took the suppression lock): set-based
 * statements over the staged rows of a chunk (`import_rows`, read here) that insert the new
 * contacts, merge into the existing ones, and find the rows left over.
 */
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { outboxInsertFrom } from '../events/events.repository.js';
import { CUSTOM_FIELDS_MAX_KEYS } from './contact-fields.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

/** Valid, first-of-their-address staged rows of one chunk ($1 import, ($2, $3] row range). */
const SRC = `src AS (
  SELECT r.row_number, r.data AS d, r.data->>'email' AS email
  FROM import_rows r
  WHERE r.import_id = $1 AND r.row_number > $2 AND r.row_number <= $3 AND r.data ? 'email'
)`;

/**
 * The suppression of an address: its own entry first, else its domain's ($4 workspace). Each join
 * matches at most one row (unique per workspace). A workspace without suppressions skips the joins.
 */
interface SuppressionSql {
  join: string;
  reason: string;
  at: string;
}
const WITH_SUPPRESSIONS: SuppressionSql = {
  join: `LEFT JOIN suppressions se ON se.workspace_id = $4 AND se.email = src.email
  LEFT JOIN suppressions sd ON sd.workspace_id = $4 AND sd.domain = regexp_replace(src.email, '^.*@', '')`,
  reason: 'COALESCE(se.reason, sd.reason)',
  at: 'CASE WHEN se.id IS NOT NULL THEN se.created_at ELSE sd.created_at END',
};
const WITHOUT_SUPPRESSIONS: SuppressionSql = { join: '', reason: 'NULL::text', at: 'NULL::timestamptz' };

const CONTACT_COLUMNS = `c.id, c.email, c.first_name, c.last_name, c.company, c.title, c.phone, c.timezone,
  c.custom_fields, c.stage, c.source, c.suppression_reason, c.suppressed_at, c.created_at, c.updated_at`;

const ISO_FORMAT = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;
const iso = (col: string): string => `to_char(${col} AT TIME ZONE 'UTC', ${ISO_FORMAT})`;
/** Inserted rows carry created_at = updated_at = now() (as timestamptz(3)): format that once. */
const isoOrNow = (col: string): string => `CASE WHEN ${col} = t.now3 THEN t.now_iso ELSE ${iso(col)} END`;

/**
 * The contact as contact.view.ts shows it, built in SQL by the statement that inserts the contacts
 * (their `contact.created` events' data, with no round trip through objects).
 */
const CONTACT_JSON = `json_build_object(
  'id', ins.id, 'email', ins.email, 'first_name', ins.first_name, 'last_name', ins.last_name,
  'company', ins.company, 'title', ins.title, 'phone', ins.phone, 'timezone', ins.timezone,
  'custom_fields', ins.custom_fields, 'stage', ins.stage, 'sendable', ins.suppression_reason IS NULL,
  'suppression', CASE WHEN ins.suppression_reason IS NULL THEN NULL ELSE json_build_object(
    'reason', ins.suppression_reason, 'created_at', ${iso('COALESCE(ins.suppressed_at, ins.updated_at)')}) END,
  'source', ins.source, 'created_at', ${isoOrNow('ins.created_at')}, 'updated_at', ${isoOrNow('ins.updated_at')})`;

/**
 * New contacts only (an address that exists, or appears concurrently, is left to updateSql), and
 * one `contact.created` event per inserted contact, in the same statement and transaction (the
 * events module's insert, `outboxInsertFrom`: no round trip through objects).
 */
const insertSql = (sup: SuppressionSql): string => `
WITH ${SRC}, ins AS (
  INSERT INTO contacts AS c (workspace_id, email, first_name, last_name, company, title, phone, timezone,
                             custom_fields, stage, source, suppression_reason, suppressed_at)
  SELECT $4::uuid, src.email, src.d->>'first_name', src.d->>'last_name', src.d->>'company', src.d->>'title',
         src.d->>'phone', src.d->>'timezone', jsonb_strip_nulls(COALESCE(src.d->'custom_fields', '{}'::jsonb)),
         COALESCE(src.d->>'stage', 'new'), 'import', ${sup.reason}, ${sup.at}
  FROM src ${sup.join}
  ORDER BY src.email
  ON CONFLICT (workspace_id, email) DO NOTHING
  RETURNING ${CONTACT_COLUMNS}
), created AS (
  SELECT $4::uuid AS workspace_id, 'contact.created'::text AS type,
         json_build_object('contact', ${CONTACT_JSON}) AS data
  FROM ins CROSS JOIN (
    SELECT now()::timestamptz(3) AS now3, to_char(now()::timestamptz(3) AT TIME ZONE 'UTC', ${ISO_FORMAT}) AS now_iso
  ) t
), ev AS (
  ${outboxInsertFrom('created')}
)
SELECT email FROM ins`;

const provided = (field: string): string =>
  `${field} = CASE WHEN src.d ? '${field}' THEN src.d->>'${field}' ELSE c.${field} END`;

/**
 * Existing contacts: provided fields overwrite, custom_fields merge key by key (a null value removes
 * a key; at most 50 keys after the merge), a suppression is never cleared. Runs as its own statement after INSERT so it sees
 * contacts another transaction committed meanwhile ($5: addresses this chunk inserted).
 */
const updateSql = (sup: SuppressionSql): string => `
WITH ${SRC}, upd AS (
  UPDATE contacts c SET
    ${['first_name', 'last_name', 'company', 'title', 'phone', 'timezone'].map(provided).join(',\n    ')},
    stage = COALESCE(src.d->>'stage', c.stage),
    custom_fields = jsonb_strip_nulls(c.custom_fields || COALESCE(src.d->'custom_fields', '{}'::jsonb)),
    suppression_reason = COALESCE(c.suppression_reason, ${sup.reason}),
    suppressed_at = CASE WHEN c.suppression_reason IS NULL THEN ${sup.at} ELSE c.suppressed_at END,
    updated_at = now()
  FROM src ${sup.join}
  WHERE c.workspace_id = $4 AND c.email = src.email AND NOT (src.email = ANY($5::text[]))
    AND (SELECT count(*) FROM jsonb_object_keys(
          jsonb_strip_nulls(c.custom_fields || COALESCE(src.d->'custom_fields', '{}'::jsonb))))
        <= ${CUSTOM_FIELDS_MAX_KEYS}
  RETURNING c.email
)
SELECT email FROM upd`;

/** Valid rows of the chunk that were neither inserted nor updated ($5: handled addresses). */
const LEFTOVER_SQL = `
WITH ${SRC}
SELECT src.row_number,
       EXISTS (SELECT 1 FROM contacts c WHERE c.workspace_id = $4 AND c.email = src.email) AS existing
FROM src WHERE NOT (src.email = ANY($5::text[]))
ORDER BY src.row_number`;

@Injectable()
export class ContactImportsRepository {
  /** Inserts the new contacts of staged rows ($2, $3] of import `importId` (with their `contact.created` events); their addresses. */
  async insertFromImport(
    workspaceId: WorkspaceId,
    importId: number,
    from: number,
    to: number,
    withSuppressions: boolean,
    m: EntityManager,
  ): Promise<string[]> {
    const sup = withSuppressions ? WITH_SUPPRESSIONS : WITHOUT_SUPPRESSIONS;
    const inserted = (await m.query(insertSql(sup), [importId, from, to, workspaceId])) as Array<{
      email: string;
    }>;
    return inserted.map((c) => c.email);
  }

  /** Merges staged rows ($2, $3] of import `importId` into existing contacts not in `handled`; their addresses. */
  async mergeFromImport(
    workspaceId: WorkspaceId,
    importId: number,
    from: number,
    to: number,
    handled: string[],
    withSuppressions: boolean,
    m: EntityManager,
  ): Promise<string[]> {
    const sup = withSuppressions ? WITH_SUPPRESSIONS : WITHOUT_SUPPRESSIONS;
    const rows = (await m.query(updateSql(sup), [importId, from, to, workspaceId, handled])) as Array<{
      email: string;
    }>;
    return rows.map((r) => r.email);
  }

  /** Valid rows of the chunk neither inserted nor updated, and whether their contact exists. */
  async leftoversOfImport(
    workspaceId: WorkspaceId,
    importId: number,
    from: number,
    to: number,
    handled: string[],
    m: EntityManager,
  ): Promise<Array<{ row_number: number; existing: boolean }>> {
    return (await m.query(LEFTOVER_SQL, [importId, from, to, workspaceId, handled])) as Array<{
      row_number: number;
      existing: boolean;
    }>;
  }
}
