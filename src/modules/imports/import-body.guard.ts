/**
 * Reads the import route's body after authentication (CONTRACT §12), as raw bytes: a method guard,
 * so it runs after the global ApiKeyGuard (401/403/429 first) and before the idempotency
 * interceptor (which fingerprints the Buffer). The limit comes from the plan: importBodyLimit().
 *
 * MERGE NOTE: this is the stand-in for the edge's `@RawBody(limit)` decorator. Once that exists,
 * replace `@UseGuards(ImportBodyGuard)` on ImportsController.create with
 * `@RawBody((req) => importBodyLimitOf(db, req))` and delete this file.
 */
import { CanActivate, Injectable, type ExecutionContext } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ApiError } from '../../common/http/api-error.js';
import { hasBody, MiB, readBody } from '../../common/http/body-reader.js';
import type { ServiceRequest } from '../../common/http/request-context.js';

/** Bytes of JSON one import row may need on average (the body limit is the row cap times this). */
export const IMPORT_BYTES_PER_ROW = 1024;

/** The import body limit for a plan: import_row_cap × 1 KiB, at least 1 MiB, at most 64 MiB. */
export function importBodyLimit(importRowCap: number): number {
  return Math.min(64 * MiB, Math.max(MiB, importRowCap * IMPORT_BYTES_PER_ROW));
}

/** The body limit of the authenticated request's workspace (64 MiB when it has none: refused later). */
export async function importBodyLimitOf(db: DataSource, req: ServiceRequest): Promise<number> {
  const workspaceId = req.principal?.workspaceId;
  if (!workspaceId) return MiB;
  const [row] = (await db.query(
    `SELECT o.import_row_cap FROM workspaces w JOIN organizations o ON o.id = w.organization_id WHERE w.id = $1`,
    [workspaceId],
  )) as Array<{ import_row_cap: number }>;
  return row ? importBodyLimit(row.import_row_cap) : MiB;
}

@Injectable()
export class ImportBodyGuard implements CanActivate {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const req = ctx.switchToHttp().getRequest<ServiceRequest>();
    // Already read (a Buffer from the edge) or parsed by an older JSON middleware: leave it.
    if (req.body !== undefined && req.body !== null) return true;
    if (hasBody(req) && !req.is('application/json') && !req.is('application/*+json')) {
      throw new ApiError(400, 'invalid_request', 'Content-Type must be application/json');
    }
    req.body = await readBody(req, await importBodyLimitOf(this.db, req));
    return true;
  }
}
