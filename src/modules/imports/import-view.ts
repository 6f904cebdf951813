/** Response shapes of this module: explicit snake_case views, never entities. */
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

/** A contacts row as returned by the runner's RETURNING clause (snake_case columns). */
export interface ContactRow {
  id: number;
  email: string;
  first_name: string | null;
  last_name: string | null;
  company: string | null;
  title: string | null;
  phone: string | null;
  timezone: string | null;
  custom_fields: Record<string, string>;
  stage: string;
  source: string;
  suppression_reason: string | null;
  suppressed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** The contact shape of CONTRACT §4, as carried by `contact.created` events. */
export function toContactEventView(c: ContactRow): Record<string, unknown> {
  return {
    id: c.id,
    email: c.email,
    first_name: c.first_name,
    last_name: c.last_name,
    company: c.company,
    title: c.title,
    phone: c.phone,
    timezone: c.timezone,
    custom_fields: c.custom_fields,
    stage: c.stage,
    sendable: c.suppression_reason === null,
    suppression:
      c.suppression_reason === null
        ? null
        : { reason: c.suppression_reason, created_at: iso(c.suppressed_at) },
    source: c.source,
    created_at: c.created_at.toISOString(),
    updated_at: c.updated_at.toISOString(),
  };
}
