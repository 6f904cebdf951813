/**
 * Keyset cursor pagination: newest first on (created_at DESC, id DESC), opaque cursors
 * signed with an HMAC bound to the tenant and the route. Every list uses this one piece.
 */
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { ApiPropertyOptional } from '@nestjs/swagger';
import type { Request } from 'express';
import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { appConfig } from '../../config/app-config.js';
import { derivedKey, hmacSha256, safeEqual } from '../crypto/crypto.js';
import { ApiError } from './api-error.js';
import type { PgPool, SqlConditions } from '../../database/pg-pool.js';
import { isoOfTimestamptz, TIMESTAMPTZ_AS_TEXT } from '../../database/timestamps.js';

export const DEFAULT_PER_PAGE = 25;
export const MAX_PER_PAGE = 100;

/** Plain decimal digits only: `1e2`, ` 5`, `0x10` and `5.0` are not accepted as numbers. */
function strictInt(value: unknown): unknown {
  if (typeof value === 'number') return value;
  return typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : Number.NaN;
}

export class PageQueryDto {
  @ApiPropertyOptional({ description: 'Opaque cursor from a previous page (next_cursor or prev_cursor)' })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  cursor?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_PER_PAGE, default: DEFAULT_PER_PAGE })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => strictInt(value))
  @IsInt({ message: 'per_page must be an integer from 1 to 100' })
  @Min(1, { message: 'per_page must be an integer from 1 to 100' })
  @Max(MAX_PER_PAGE, { message: 'per_page must be an integer from 1 to 100' })
  per_page?: number;
}

interface CursorPayload {
  d: 'n' | 'p';
  t: string;
  i: number | string;
}

export interface PageScope {
  /** Tenant the cursor is bound to (workspace or organization id). */
  tenant: string;
  /** Route the cursor is bound to, e.g. `contacts.index`. */
  route: string;
}

let cursorKey: Buffer | undefined;
const key = (): Buffer => (cursorKey ??= derivedKey('cursor'));

function tag(scope: PageScope, payload: string): string {
  return hmacSha256(key(), `${scope.tenant}|${scope.route}|${payload}`).subarray(0, 16).toString('base64url');
}

export function encodeCursor(scope: PageScope, payload: CursorPayload): string {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${tag(scope, body)}`;
}

export function decodeCursor(scope: PageScope, cursor: string): CursorPayload {
  // Built only on failure: an HttpException captures a stack trace, too dear for every page.
  const invalid = (): ApiError => ApiError.validation('cursor', 'cursor is invalid for this list');
  const [body, sig, extra] = cursor.split('.');
  if (!body || !sig || extra !== undefined) throw invalid();
  if (!safeEqual(Buffer.from(sig), Buffer.from(tag(scope, body)))) throw invalid();
  let payload: CursorPayload;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as CursorPayload;
  } catch {
    throw invalid();
  }
  if (
    payload === null ||
    typeof payload !== 'object' ||
    (payload.d !== 'n' && payload.d !== 'p') ||
    typeof payload.t !== 'string' ||
    (typeof payload.i !== 'number' && typeof payload.i !== 'string') ||
    Number.isNaN(Date.parse(payload.t))
  ) {
    throw invalid();
  }
  return payload;
}

export interface Keyed {
  id: number | string;
  createdAt: Date;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
  prevCursor: string | null;
  perPage: number;
}

/** Page size, decoded cursor and direction of a list request: the part both paginators share. */
function keysetOf(query: PageQueryDto, scope: PageScope) {
  const perPage = query.per_page ?? DEFAULT_PER_PAGE;
  const cursor = query.cursor ? decodeCursor(scope, query.cursor) : undefined;
  const backwards = cursor?.d === 'p';
  return { perPage, cursor, backwards, dir: backwards ? ('ASC' as const) : ('DESC' as const) };
}

/**
 * Runs `qb` (already filtered to the tenant) one keyset page at a time. `alias` is the query's main
 * alias; the entity needs `createdAt` (timestamptz(3)) and `id` columns.
 */
export async function paginate<T extends ObjectLiteral & Keyed>(
  qb: SelectQueryBuilder<T>,
  alias: string,
  query: PageQueryDto,
  scope: PageScope,
): Promise<Page<T>> {
  const { perPage, cursor, backwards, dir } = keysetOf(query, scope);
  if (cursor) {
    qb.andWhere(
      `(${alias}.createdAt, ${alias}.id) ${backwards ? '>' : '<'} (:cursorT::timestamptz, :cursorI)`,
      {
        cursorT: cursor.t,
        cursorI: cursor.i,
      },
    );
  }
  const rows = await qb
    .orderBy(`${alias}.createdAt`, dir)
    .addOrderBy(`${alias}.id`, dir)
    .take(perPage + 1)
    .getMany();
  return pageOf(rows, perPage, cursor, scope, (row) => [row.createdAt.toISOString(), row.id]);
}

/**
 * A row of a hand-written list query: snake_case columns as pg returns them, except timestamptz
 * columns, which stay PostgreSQL's text (TIMESTAMPTZ_AS_TEXT; `isoOfTimestamptz` gives the API's form).
 */
export interface RawKeyed {
  id: number | string;
  created_at: string;
}

/**
 * The same keyset page as `paginate`, for hot lists that skip the ORM: `select` is `SELECT … FROM t`
 * (its rows must carry `created_at` and `id` of `t`), `where` is already filtered to the tenant. One
 * round trip to the pool, no query runner, no entity hydration, timestamps left as text (bench:
 * GET /contacts).
 */
export async function paginateSql<R extends RawKeyed>(
  pool: PgPool,
  select: string,
  where: SqlConditions,
  query: PageQueryDto,
  scope: PageScope,
): Promise<Page<R>> {
  const { perPage, cursor, backwards, dir } = keysetOf(query, scope);
  if (cursor)
    where.where(`(created_at, id) ${backwards ? '>' : '<'} (?::timestamptz, ?)`, cursor.t, cursor.i);
  const sql = `${select} ${where.toSql()} ORDER BY created_at ${dir}, id ${dir} LIMIT ${perPage + 1}`;
  const { rows } = await pool.query<R>({ text: sql, values: where.params, types: TIMESTAMPTZ_AS_TEXT });
  return pageOf(rows, perPage, cursor, scope, (row) => [isoOfTimestamptz(row.created_at), row.id]);
}

/** Cuts the one-extra-row query result into a page and signs its cursors. */
function pageOf<T>(
  rows: T[],
  perPage: number,
  cursor: CursorPayload | undefined,
  scope: PageScope,
  keyOf: (row: T) => [string, number | string],
): Page<T> {
  const backwards = cursor?.d === 'p';
  const hasMore = rows.length > perPage;
  const items = rows.slice(0, perPage);
  if (backwards) items.reverse();
  const at = (d: 'n' | 'p', row: T): string => {
    const [t, i] = keyOf(row);
    return encodeCursor(scope, { d, t, i });
  };
  const first = items[0];
  const last = items[items.length - 1];
  const nextCursor = backwards ? (last ? at('n', last) : null) : hasMore && last ? at('n', last) : null;
  const prevCursor = backwards
    ? hasMore && first
      ? at('p', first)
      : null
    : cursor && first
      ? at('p', first)
      : null;
  return { items, nextCursor, prevCursor, perPage };
}

export interface Collection<D> {
  data: D[];
  next_cursor: string | null;
  links: { first: string | null; last: null; prev: string | null; next: string | null };
  meta: { path: string | null; per_page: number; next_cursor: string | null; prev_cursor: string | null };
}

/** Wraps a page in the collection envelope with links built on PUBLIC_URL. */
export function collection<T, D>(page: Page<T>, map: (item: T) => D, req: Request): Collection<D> {
  const path = `${appConfig().publicUrl}${req.baseUrl}${req.path}`;
  // Express 5 parses the query string again on every read of req.query.
  const query = Object.entries(req.query);
  const link = (cursor: string | null | undefined): string => {
    const params = new URLSearchParams();
    for (const [k, v] of query) {
      if (k === 'cursor' || typeof v !== 'string') continue;
      params.set(k, v);
    }
    if (cursor) params.set('cursor', cursor);
    const qs = params.toString();
    return qs ? `${path}?${qs}` : path;
  };
  return {
    data: page.items.map(map),
    next_cursor: page.nextCursor,
    links: {
      first: link(undefined),
      last: null,
      prev: page.prevCursor ? link(page.prevCursor) : null,
      next: page.nextCursor ? link(page.nextCursor) : null,
    },
    meta: { path, per_page: page.perPage, next_cursor: page.nextCursor, prev_cursor: page.prevCursor },
  };
}
