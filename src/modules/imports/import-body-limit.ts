/**
 * The import route's body limit: what the plan's import_row_cap can need, at least
 * 1 MiB, at most 64 MiB. `@RawBody(importBodyLimitOf)` on ImportsController.create makes the API-key
 * guard read the body as raw bytes after authentication (401/403/429 first) and before the
 * idempotency interceptor (which fingerprints the Buffer); the handler parses it as a stream.
 */
import type { DataSource } from 'typeorm';
import { ApiError } from '../../common/http/api-error.js';
import { hasBody, MiB } from '../../common/http/body-reader.js';
import type { ServiceRequest } from '../../common/http/request-context.js';
import { ImportRowsRepository } from './import-rows.repository.js';

/** Bytes of JSON one import row may need on average (the body limit is the row cap times this). */
export const IMPORT_BYTES_PER_ROW = 1024;

/** The import body limit for a plan: import_row_cap × 1 KiB, at least 1 MiB, at most 64 MiB. */
export function importBodyLimit(importRowCap: number): number {
  return Math.min(64 * MiB, Math.max(MiB, importRowCap * IMPORT_BYTES_PER_ROW));
}

/** The body limit of the authenticated request's workspace (1 MiB when it has none: refused later by the tier check). */
export async function importBodyLimitOf(req: ServiceRequest, db: DataSource): Promise<number> {
  // JSON only, refused before a byte of the body is read.
  if (hasBody(req) && !req.is('application/json') && !req.is('application/*+json')) {
    throw new ApiError(400, 'invalid_request', 'Content-Type must be application/json');
  }
  const workspaceId = req.principal?.workspaceId;
  if (!workspaceId) return MiB;
  const plan = await new ImportRowsRepository(db).planOf(workspaceId);
  return plan ? importBodyLimit(plan.import_row_cap) : MiB;
}
