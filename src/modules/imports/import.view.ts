/** The import resource: an explicit snake_case view, never the entity. */
import type { ImportBatch, ImportRowError, ImportStatus } from './entities/import-batch.entity.js';

export interface ImportView {
  id: number;
  status: ImportStatus;
  source: 'api' | 'cli';
  update_existing: boolean;
  total_rows: number;
  processed_rows: number;
  created_count: number;
  updated_count: number;
  skipped_count: number;
  error_count: number;
  errors: ImportRowError[];
  failure_reason: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

export function toImportView(b: ImportBatch): ImportView {
  return {
    id: b.id,
    status: b.status,
    source: b.source,
    update_existing: b.updateExisting,
    total_rows: b.totalRows,
    processed_rows: b.processedRows,
    created_count: b.createdCount,
    updated_count: b.updatedCount,
    skipped_count: b.skippedCount,
    error_count: b.errorCount,
    errors: b.errors,
    failure_reason: b.failureReason,
    created_at: b.createdAt.toISOString(),
    started_at: iso(b.startedAt),
    finished_at: iso(b.finishedAt),
  };
}
