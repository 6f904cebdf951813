/**
 * Runs a staged import in chunks of set-based SQL (no row-by-row round trips). Each chunk is one
 * transaction that locks the batch row, reads the checkpoint, upserts the chunk's contacts, writes
 * their `contact.created` events, deletes the chunk's staged rows and advances the checkpoint
 * (processed_rows + counters + errors). A killed worker therefore resumes exactly where the last
 * committed chunk ended: nothing is applied or counted twice, and two runners of the same batch
 * (a recovered job next to a stalled one) simply take turns on the row lock.
 *
 * Used by the Bull processor (workers) and inline by the `import` CLI command.
 */
import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { notifyOutbox } from '../events/outbox.js';
import type { ImportRowError, ImportStatus } from './entities/import-batch.entity.js';
import { MAX_CUSTOM_FIELDS } from './import-rows.js';
import { lockSuppressionsShared } from '../suppressions/suppression-store.js';
import { isContactCapError, ROOM_SQL } from '../contacts/contact-cap.js';

/** Rows per chunk (a checkpoint after each). IMPORT_CHUNK_ROWS overrides it (tests, tuning). */
export const IMPORT_CHUNK_ROWS = Math.max(1, Number(process.env.IMPORT_CHUNK_ROWS) || 5000);
/** Errors listed on the batch; the count covers all of them. */
export const MAX_LISTED_ERRORS = 100;
export const CAP_EXCEEDED = 'import_cap_exceeded';

export interface ImportProgress {
  id: number;
  status: ImportStatus;
  totalRows: number;
  processedRows: number;
  createdCount: number;
  updatedCount: number;
  skippedCount: number;
  errorCount: number;
}

export type RunOutcome = 'completed' | 'failed' | 'gone' | 'interrupted';

interface BatchRow {
  id: number;
  workspace_id: string;
  status: ImportStatus;
  update_existing: boolean;
  total_rows: number;
  processed_rows: number;
  created_count: number;
  updated_count: number;
  skipped_count: number;
  error_count: number;
  errors: ImportRowError[];
}

const BATCH_COLUMNS = `id, workspace_id, status, update_existing, total_rows, processed_rows, created_count,
  updated_count, skipped_count, error_count, errors`;

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

const CHUNK_SUMMARY_SQL = `
SELECT count(*)::int AS rows,
       count(*) FILTER (WHERE data ? 'email')::int AS valid,
       count(*) FILTER (WHERE data ? '_dup')::int AS duplicates,
       count(*) FILTER (WHERE data ? '_error')::int AS invalid,
       COALESCE(jsonb_agg(jsonb_build_object('row', row_number, 'field', data#>>'{_error,field}',
                'message', data#>>'{_error,message}') ORDER BY row_number)
                FILTER (WHERE data ? '_error'), '[]'::jsonb) AS errors
FROM import_rows WHERE import_id = $1 AND row_number > $2 AND row_number <= $3`;

const ISO_FORMAT = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;
const iso = (col: string): string => `to_char(${col} AT TIME ZONE 'UTC', ${ISO_FORMAT})`;
/** Inserted rows carry created_at = updated_at = now() (as timestamptz(3)): format that once. */
const isoOrNow = (col: string): string => `CASE WHEN ${col} = t.now3 THEN t.now_iso ELSE ${iso(col)} END`;

/**
 * The contact of CONTRACT §4 (as src/modules/contacts/contact-view.ts shows it), built in SQL so a
 * chunk's `contact.created` events are written by the same statement that inserts the contacts.
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
 * one `contact.created` outbox row per inserted contact, in the same statement and transaction
 * (the rows recordEvents() would write: id, workspace_id, type, data {contact}, occurred_at).
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
), ev AS (
  INSERT INTO events (id, workspace_id, type, data, occurred_at)
  SELECT gen_random_uuid(), $4::uuid, 'contact.created', json_build_object('contact', ${CONTACT_JSON}), now()
  FROM ins CROSS JOIN (
    SELECT now()::timestamptz(3) AS now3, to_char(now()::timestamptz(3) AT TIME ZONE 'UTC', ${ISO_FORMAT}) AS now_iso
  ) t
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
        <= ${MAX_CUSTOM_FIELDS}
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

/** How many NEW contacts the staged rows after the checkpoint would add. */
const NEW_AHEAD_SQL = `
SELECT count(*)::int AS n FROM import_rows r
WHERE r.import_id = $1 AND r.row_number > $2 AND r.data ? 'email'
  AND NOT EXISTS (SELECT 1 FROM contacts c WHERE c.workspace_id = $3 AND c.email = r.data->>'email')`;

/**
 * New contacts the staged rows after `processedRows` would add, and the workspace's room left.
 * When even `rowsAhead` (an upper bound of the new contacts) fits, the per-address count is skipped
 * and `newContacts` is that bound.
 */
export async function capCheck(
  manager: EntityManager,
  importId: number,
  workspaceId: string,
  processedRows: number,
  rowsAhead: number,
): Promise<{ newContacts: number; room: number }> {
  const [row] = (await manager.query(ROOM_SQL, [workspaceId])) as Array<{ room: number }>;
  const room = row ? row.room : 0;
  if (rowsAhead <= room) return { newContacts: rowsAhead, room };
  const [{ n }] = (await manager.query(NEW_AHEAD_SQL, [importId, processedRows, workspaceId])) as Array<{
    n: number;
  }>;
  return { newContacts: n, room };
}

const toProgress = (b: BatchRow): ImportProgress => ({
  id: b.id,
  status: b.status,
  totalRows: b.total_rows,
  processedRows: b.processed_rows,
  createdCount: b.created_count,
  updatedCount: b.updated_count,
  skippedCount: b.skipped_count,
  errorCount: b.error_count,
});

@Injectable()
export class ImportRunner implements OnApplicationShutdown {
  private stopping = false;

  constructor(@InjectDataSource() private readonly db: DataSource) {}

  onApplicationShutdown(): void {
    // Stop between chunks; the checkpoint is committed, so the recovery path resumes it later.
    this.stopping = true;
  }

  /** Starts or resumes an import and runs it to the end (or until the process shuts down). */
  async run(importId: number, onProgress?: (p: ImportProgress) => void): Promise<RunOutcome> {
    const started = await this.start(importId);
    if (started !== 'processing') return started;
    for (;;) {
      if (this.stopping) return 'interrupted';
      let step: Awaited<ReturnType<ImportRunner['runChunk']>>;
      try {
        step = await this.runChunk(importId);
      } catch (err) {
        // The chunk would pass the cap (contacts created meanwhile by another path): the trigger
        // refused it and its transaction rolled back; earlier chunks stay applied.
        if (!isContactCapError(err)) throw err;
        await this.failCapExceeded(importId);
        return 'failed';
      }
      // Wake the webhook dispatcher now that the chunk's events are committed (it also polls).
      if (step.created) setImmediate(notifyOutbox);
      if (step.progress) onProgress?.(step.progress);
      if (step.outcome) return step.outcome;
    }
  }

  /**
   * Start or resume: re-checks the plan's contact cap against the staged rows still ahead, then
   * marks the batch processing (or failed with import_cap_exceeded).
   */
  async start(importId: number): Promise<'processing' | 'completed' | 'failed' | 'gone'> {
    return this.db.transaction(async (m) => {
      const [b] = (await m.query(`SELECT ${BATCH_COLUMNS} FROM imports WHERE id = $1 FOR UPDATE`, [
        importId,
      ])) as BatchRow[];
      if (!b) return 'gone';
      if (b.status === 'completed' || b.status === 'failed') return b.status;
      const { newContacts, room } = await capCheck(
        m,
        b.id,
        b.workspace_id,
        b.processed_rows,
        b.total_rows - b.processed_rows,
      );
      if (newContacts > room) {
        await m.query(
          `UPDATE imports SET status = 'failed', failure_reason = $2, started_at = COALESCE(started_at, now()),
             finished_at = now() WHERE id = $1`,
          [b.id, CAP_EXCEEDED],
        );
        await m.query('DELETE FROM import_rows WHERE import_id = $1', [b.id]);
        return 'failed';
      }
      await m.query(
        `UPDATE imports SET status = 'processing', started_at = COALESCE(started_at, now()) WHERE id = $1`,
        [b.id],
      );
      return 'processing';
    });
  }

  private async failCapExceeded(importId: number): Promise<void> {
    await this.db.transaction(async (m) => {
      await m.query(
        `UPDATE imports SET status = 'failed', failure_reason = $2, finished_at = now()
         WHERE id = $1 AND status IN ('queued', 'processing')`,
        [importId, CAP_EXCEEDED],
      );
      await m.query('DELETE FROM import_rows WHERE import_id = $1', [importId]);
    });
  }

  /** One chunk after the checkpoint, in one transaction. */
  async runChunk(
    importId: number,
  ): Promise<{ outcome?: RunOutcome; progress?: ImportProgress; created?: number }> {
    return this.db.transaction(async (m) => {
      const [b] = (await m.query(`SELECT ${BATCH_COLUMNS} FROM imports WHERE id = $1 FOR UPDATE`, [
        importId,
      ])) as BatchRow[];
      if (!b) return { outcome: 'gone' };
      if (b.status === 'completed' || b.status === 'failed') return { outcome: b.status };
      if (b.status !== 'processing') return { outcome: 'interrupted' };
      const from = b.processed_rows;
      const to = Math.min(from + IMPORT_CHUNK_ROWS, b.total_rows);
      const ws = b.workspace_id;
      const [summary] = (await m.query(CHUNK_SUMMARY_SQL, [b.id, from, to])) as Array<{
        rows: number;
        valid: number;
        duplicates: number;
        invalid: number;
        errors: ImportRowError[];
      }>;
      let created = 0;
      let updated = 0;
      let skipped = summary.duplicates;
      let failed = summary.invalid;
      const errors = [...summary.errors];
      if (summary.valid > 0) {
        // Same lock order as suppressAddress: a suppression added meanwhile cannot miss this chunk's rows.
        await lockSuppressionsShared(m, ws);
        const [{ any }] = (await m.query(
          'SELECT EXISTS (SELECT 1 FROM suppressions WHERE workspace_id = $1) AS any',
          [ws],
        )) as Array<{ any: boolean }>;
        const sup = any ? WITH_SUPPRESSIONS : WITHOUT_SUPPRESSIONS;
        const inserted = (await m.query(insertSql(sup), [b.id, from, to, ws])) as Array<{ email: string }>;
        created = inserted.length;
        const handled = inserted.map((c) => c.email);
        if (b.update_existing && created < summary.valid) {
          const rows = (await m.query(updateSql(sup), [b.id, from, to, ws, handled])) as Array<{
            email: string;
          }>;
          updated = rows.length;
          for (const r of rows) handled.push(r.email);
        }
        const rest = summary.valid - created - updated;
        if (rest > 0 && !b.update_existing) {
          skipped += rest; // existing contacts are left as they are
        } else if (rest > 0) {
          const left = (await m.query(LEFTOVER_SQL, [b.id, from, to, ws, handled])) as Array<{
            row_number: number;
            existing: boolean;
          }>;
          for (const l of left) {
            if (!l.existing) {
              skipped += 1; // deleted concurrently between the statements: nothing to update
              continue;
            }
            failed += 1;
            errors.push({
              row: l.row_number,
              field: 'custom_fields',
              message: `custom_fields would have more than ${MAX_CUSTOM_FIELDS} keys after merging`,
            });
          }
        }
      }
      // Staged rows that were never there (cannot happen unless deleted by hand) count as skipped,
      // so the counters always add up to processed_rows.
      skipped += to - from - summary.rows;
      errors.sort((a, b2) => a.row - b2.row);
      const listed = [...b.errors, ...errors].slice(0, MAX_LISTED_ERRORS);
      await m.query('DELETE FROM import_rows WHERE import_id = $1 AND row_number > $2 AND row_number <= $3', [
        b.id,
        from,
        to,
      ]);
      const [after] = (await m.query(
        `UPDATE imports SET processed_rows = $2,
           created_count = created_count + $3, updated_count = updated_count + $4,
           skipped_count = skipped_count + $5, error_count = error_count + $6, errors = $7::jsonb,
           status = CASE WHEN $2 >= total_rows THEN 'completed' ELSE status END,
           finished_at = CASE WHEN $2 >= total_rows THEN now() ELSE finished_at END
         WHERE id = $1 RETURNING ${BATCH_COLUMNS}`,
        [b.id, to, created, updated, skipped, failed, JSON.stringify(listed)],
      )) as [BatchRow[], number];
      const row = after[0];
      return {
        created,
        progress: toProgress(row),
        outcome: row.status === 'completed' ? 'completed' : undefined,
      };
    });
  }
}
