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
import type { DataSource } from 'typeorm';
import { notifyOutbox } from '../events/outbox.js';
import type { ImportStatus } from './entities/import-batch.entity.js';
import { countImportRows } from '../../common/metrics/metrics.js';
import { Draining, ForegroundWork } from '../../common/lifecycle/draining.js';
import { MAX_CUSTOM_FIELDS } from './import-rows.js';
import { SuppressionStore } from '../suppressions/suppression-store.js';
import { isContactCapError } from '../contacts/contact-cap.js';
import { ContactImportsRepository } from '../contacts/contact-imports.repository.js';
import { ImportRowsRepository, type BatchRow } from './import-rows.repository.js';
import { asWorkspaceId, type WorkspaceId } from '../../common/tenant/workspace-id.js';

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

/** What one committed chunk did with its rows (import metrics). */
interface ChunkCounts {
  workspaceId: WorkspaceId;
  created: number;
  updated: number;
  skipped: number;
  failed: number;
}

@Injectable()
export class ImportRunner implements OnApplicationShutdown {
  private stopping = false;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly rows: ImportRowsRepository,
    draining: Draining,
    private readonly suppressions: SuppressionStore,
    private readonly contacts: ContactImportsRepository,
    private readonly foreground: ForegroundWork,
  ) {
    // Shutting down: stop after the running chunk (its checkpoint commits) instead of running on.
    draining.onBegin(() => {
      this.stopping = true;
    });
  }

  onApplicationShutdown(): void {
    // Stop between chunks; the checkpoint is committed, so the recovery path resumes it later.
    this.stopping = true;
  }

  /**
   * Starts or resumes an import and runs it to the end (or until the process shuts down), as
   * foreground work: background address checks yield to it.
   */
  run(importId: number, onProgress?: (p: ImportProgress) => void): Promise<RunOutcome> {
    return this.foreground.during(() => this.runToEnd(importId, onProgress));
  }

  private async runToEnd(importId: number, onProgress?: (p: ImportProgress) => void): Promise<RunOutcome> {
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
      // Counted once the chunk has committed (a rolled-back chunk is run again and counted then).
      if (step.counted) countImportRows(step.counted, step.counted.workspaceId);
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
      const b = await this.rows.lockBatchAcrossWorkspaces(importId, m);
      if (!b) return 'gone';
      if (b.status === 'completed' || b.status === 'failed') return b.status;
      const ws = asWorkspaceId(b.workspace_id);
      const { newContacts, room } = await this.rows.capCheck(
        ws,
        b.id,
        b.processed_rows,
        b.total_rows - b.processed_rows,
        m,
      );
      if (newContacts > room) {
        await this.rows.failAcrossWorkspaces(b.id, CAP_EXCEEDED, m, true);
        return 'failed';
      }
      await this.rows.markProcessing(ws, b.id, m);
      return 'processing';
    });
  }

  private async failCapExceeded(importId: number): Promise<void> {
    await this.db.transaction(async (m) => {
      await this.rows.failAcrossWorkspaces(importId, CAP_EXCEEDED, m);
    });
  }

  /** One chunk after the checkpoint, in one transaction. */
  async runChunk(
    importId: number,
  ): Promise<{ outcome?: RunOutcome; progress?: ImportProgress; created?: number; counted?: ChunkCounts }> {
    return this.db.transaction(async (m) => {
      const b = await this.rows.lockBatchAcrossWorkspaces(importId, m);
      if (!b) return { outcome: 'gone' };
      if (b.status === 'completed' || b.status === 'failed') return { outcome: b.status };
      if (b.status !== 'processing') return { outcome: 'interrupted' };
      const from = b.processed_rows;
      const to = Math.min(from + IMPORT_CHUNK_ROWS, b.total_rows);
      const ws = asWorkspaceId(b.workspace_id);
      const summary = await this.rows.chunkSummary(ws, b.id, from, to, m);
      let created = 0;
      let updated = 0;
      let skipped = summary.duplicates;
      let failed = summary.invalid;
      const errors = [...summary.errors];
      if (summary.valid > 0) {
        // Same lock order as suppressAddress: a suppression added meanwhile cannot miss this chunk's rows.
        await this.suppressions.lockShared(m, ws);
        const sup = await this.rows.hasSuppressions(ws, m);
        const handled = await this.contacts.insertFromImport(ws, b.id, from, to, sup, m);
        created = handled.length;
        if (b.update_existing && created < summary.valid) {
          const merged = await this.contacts.mergeFromImport(ws, b.id, from, to, handled, sup, m);
          updated = merged.length;
          handled.push(...merged);
        }
        const rest = summary.valid - created - updated;
        if (rest > 0 && !b.update_existing) {
          skipped += rest; // existing contacts are left as they are
        } else if (rest > 0) {
          const left = await this.contacts.leftoversOfImport(ws, b.id, from, to, handled, m);
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
      const row = await this.rows.checkpoint(
        ws,
        b.id,
        { from, to },
        { created, updated, skipped, failed, errors: listed },
        m,
      );
      return {
        created,
        counted: { workspaceId: ws, created, updated, skipped, failed },
        progress: toProgress(row),
        outcome: row.status === 'completed' ? 'completed' : undefined,
      };
    });
  }
}
