/**
 * The statements of running an import: the batch row under its lock, the staged rows of one chunk
 * (summary, insert of new contacts, update of existing ones, leftovers), the checkpoint, and the cap
 * check. Hand-written SQL: this is the import hot path (one statement per step of a 5,000-row chunk).
 * The worker runs imports of every workspace; the batch row it locks carries its workspace id.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { from as copyFrom, type CopyStreamQuery } from 'pg-copy-streams';
import type { DataSource, EntityManager } from 'typeorm';
import { ROOM_SQL } from '../contacts/contact-cap.js';
import type { ImportRowError } from './entities/import-batch.entity.js';
import type { ImportView } from './import.view.js';
import { rowsOf } from '../../database/query-rows.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

/** The batch columns a run works with: the view's counters, plus its workspace. */
export type BatchRow = Pick<
  ImportView,
  | 'id'
  | 'status'
  | 'update_existing'
  | 'total_rows'
  | 'processed_rows'
  | 'created_count'
  | 'updated_count'
  | 'skipped_count'
  | 'error_count'
  | 'errors'
> & { workspace_id: string };

const BATCH_COLUMNS = `id, workspace_id, status, update_existing, total_rows, processed_rows, created_count,
  updated_count, skipped_count, error_count, errors`;

const CHUNK_SUMMARY_SQL = `
SELECT count(*)::int AS rows,
       count(*) FILTER (WHERE data ? 'email')::int AS valid,
       count(*) FILTER (WHERE data ? '_dup')::int AS duplicates,
       count(*) FILTER (WHERE data ? '_error')::int AS invalid,
       COALESCE(jsonb_agg(jsonb_build_object('row', row_number, 'field', data#>>'{_error,field}',
                'message', data#>>'{_error,message}') ORDER BY row_number)
                FILTER (WHERE data ? '_error'), '[]'::jsonb) AS errors
FROM import_rows WHERE import_id = $1 AND row_number > $2 AND row_number <= $3`;

/** How many NEW contacts the staged rows after the checkpoint would add. */
const NEW_AHEAD_SQL = `
SELECT count(*)::int AS n FROM import_rows r
WHERE r.import_id = $1 AND r.row_number > $2 AND r.data ? 'email'
  AND NOT EXISTS (SELECT 1 FROM contacts c WHERE c.workspace_id = $3 AND c.email = r.data->>'email')`;

/** The pg client under a query runner, as pg-copy-streams needs it. */
interface PgClientForCopy {
  query(stream: CopyStreamQuery): CopyStreamQuery;
}

export interface ChunkSummary {
  rows: number;
  valid: number;
  duplicates: number;
  invalid: number;
  errors: ImportRowError[];
}

export interface ChunkCounts {
  created: number;
  updated: number;
  skipped: number;
  failed: number;
  errors: ImportRowError[];
}

export interface ImportPlan {
  import_row_cap: number;
  max_contacts_per_workspace: number;
}

@Injectable()
export class ImportRowsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** The import-related limits of the workspace's organization plan. */
  async planOf(workspaceId: WorkspaceId): Promise<ImportPlan | undefined> {
    const [plan] = (await this.db.query(
      `SELECT o.import_row_cap, o.max_contacts_per_workspace
       FROM workspaces w JOIN organizations o ON o.id = w.organization_id WHERE w.id = $1`,
      [workspaceId],
    )) as ImportPlan[];
    return plan;
  }

  /**
   * Streams staged lines (`import_id<TAB>row_number<TAB>data`) into import_rows with COPY on the
   * transaction's own connection: about twice as fast as INSERT … jsonb_array_elements, with no
   * multi-megabyte parameter. A failure of the source aborts the COPY, and with it the transaction.
   */
  async copyStagedRows(
    workspaceId: WorkspaceId,
    lines: AsyncIterable<string>,
    m: EntityManager,
  ): Promise<void> {
    const client = (await m.queryRunner!.connect()) as PgClientForCopy;
    const copy = client.query(copyFrom('COPY import_rows (import_id, row_number, data) FROM STDIN'));
    await pipeline(Readable.from(lines), copy);
  }

  async setTotals(
    workspaceId: WorkspaceId,
    importId: number,
    totalRows: number,
    updateExisting: boolean,
    m: EntityManager,
  ): Promise<void> {
    await m.query(
      'UPDATE imports SET total_rows = $3, update_existing = $4 WHERE workspace_id = $1 AND id = $2',
      [workspaceId, importId, totalRows, updateExisting],
    );
  }

  /** Imports left queued or processing (all), or queued for longer than `queuedForMs`. */
  async unfinishedAcrossWorkspaces(
    queuedForMs?: number,
  ): Promise<Array<{ id: number; workspace_id: string }>> {
    return (await (queuedForMs === undefined
      ? this.db.query(
          `SELECT id, workspace_id FROM imports WHERE status IN ('queued', 'processing') ORDER BY id`,
        )
      : this.db.query(
          `SELECT id, workspace_id FROM imports
           WHERE status = 'queued' AND created_at < now() - $1 * interval '1 millisecond' ORDER BY id`,
          [queuedForMs],
        ))) as Array<{ id: number; workspace_id: string }>;
  }

  /** The batch row, locked for the rest of the transaction. */
  async lockBatchAcrossWorkspaces(importId: number, m: EntityManager): Promise<BatchRow | undefined> {
    const [b] = (await m.query(`SELECT ${BATCH_COLUMNS} FROM imports WHERE id = $1 FOR UPDATE`, [
      importId,
    ])) as BatchRow[];
    return b;
  }

  async markProcessing(workspaceId: WorkspaceId, importId: number, m: EntityManager): Promise<void> {
    await m.query(
      `UPDATE imports SET status = 'processing', started_at = COALESCE(started_at, now())
       WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, importId],
    );
  }

  /**
   * Fails a batch that is still queued or processing (`started` also stamps started_at). Its staged
   * rows are deleted by the staged-rows sweep, in batches.
   */
  async failAcrossWorkspaces(
    importId: number,
    reason: string,
    m: EntityManager,
    started = false,
  ): Promise<void> {
    await m.query(
      `UPDATE imports SET status = 'failed', failure_reason = $2, finished_at = now()
         ${started ? ', started_at = COALESCE(started_at, now())' : ''}
       WHERE id = $1 AND status IN ('queued', 'processing')`,
      [importId, reason],
    );
  }

  /** Marks a batch failed (no transaction needed); finished batches are left alone. */
  async markFailedAcrossWorkspaces(importId: number, reason: string): Promise<void> {
    await this.db.query(
      `UPDATE imports SET status = 'failed', failure_reason = $2, finished_at = now()
       WHERE id = $1 AND status IN ('queued', 'processing')`,
      [importId, reason],
    );
  }

  async chunkSummary(
    workspaceId: WorkspaceId,
    importId: number,
    from: number,
    to: number,
    m: EntityManager,
  ): Promise<ChunkSummary> {
    const [summary] = (await m.query(CHUNK_SUMMARY_SQL, [importId, from, to])) as ChunkSummary[];
    return summary;
  }

  async hasSuppressions(workspaceId: WorkspaceId, m: EntityManager): Promise<boolean> {
    const [{ any }] = (await m.query(
      'SELECT EXISTS (SELECT 1 FROM suppressions WHERE workspace_id = $1) AS any',
      [workspaceId],
    )) as Array<{ any: boolean }>;
    return any;
  }

  /** Drops the chunk's staged rows and moves the checkpoint to `to` with the chunk's counts. */
  async checkpoint(
    workspaceId: WorkspaceId,
    importId: number,
    range: { from: number; to: number },
    counts: ChunkCounts,
    m: EntityManager,
  ): Promise<BatchRow> {
    await m.query('DELETE FROM import_rows WHERE import_id = $1 AND row_number > $2 AND row_number <= $3', [
      importId,
      range.from,
      range.to,
    ]);
    const [after] = (await m.query(
      `UPDATE imports SET processed_rows = $2,
         created_count = created_count + $3, updated_count = updated_count + $4,
         skipped_count = skipped_count + $5, error_count = error_count + $6, errors = $7::jsonb,
         status = CASE WHEN $2 >= total_rows THEN 'completed' ELSE status END,
         finished_at = CASE WHEN $2 >= total_rows THEN now() ELSE finished_at END
       WHERE id = $1 AND workspace_id = $8 RETURNING ${BATCH_COLUMNS}`,
      [
        importId,
        range.to,
        counts.created,
        counts.updated,
        counts.skipped,
        counts.failed,
        JSON.stringify(counts.errors),
        workspaceId,
      ],
    )) as [BatchRow[], number];
    return after[0];
  }

  /**
   * New contacts the staged rows after `processedRows` would add, and the workspace's room left.
   * When even `rowsAhead` (an upper bound of the new contacts) fits, the per-address count is skipped
   * and `newContacts` is that bound.
   */
  async capCheck(
    workspaceId: WorkspaceId,
    importId: number,
    processedRows: number,
    rowsAhead: number,
    m: EntityManager,
  ): Promise<{ newContacts: number; room: number }> {
    const [row] = (await m.query(ROOM_SQL, [workspaceId])) as Array<{ room: number }>;
    const room = row ? row.room : 0;
    if (rowsAhead <= room) return { newContacts: rowsAhead, room };
    const [{ n }] = (await m.query(NEW_AHEAD_SQL, [importId, processedRows, workspaceId])) as Array<{
      n: number;
    }>;
    return { newContacts: n, room };
  }

  /** Deletes up to `batch` staged rows of imports that completed or failed; how many. */
  async deleteStagedOfFinishedAcrossWorkspaces(batch: number): Promise<number> {
    const deleted = rowsOf(
      await this.db.query(
        `DELETE FROM import_rows WHERE ctid IN (
         SELECT r.ctid FROM imports i JOIN import_rows r ON r.import_id = i.id
         WHERE i.status IN ('completed', 'failed')
         LIMIT $1)
       RETURNING 1`,
        [batch],
      ),
    );
    return deleted.length;
  }
}
