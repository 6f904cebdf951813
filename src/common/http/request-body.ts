/**
 * The request body of API-key routes, read only after the credential and its rights were checked
 *: the global ApiKeyGuard calls `readApiBody()` as its last step, after the rate
 * limit and before interceptors (idempotency fingerprints `req.body`) and pipes run. No Express
 * middleware reads an /api/v1 body any more, so an unauthenticated request costs a header parse
 * and one hash, whatever its size or Content-Encoding.
 *
 * - Default: JSON of at most 1 MiB (inflated bytes counted, body-reader.ts), `Content-Type` JSON
 *   (else 400), JSON syntax (400), an object or array at the top (400), nesting at most 32 (400),
 *   then every string well-formed Unicode without NUL (422 naming the dotted field, 400 in a key).
 * - `@RawBody(limit)`: the decoded bytes as a Buffer in `req.body`, bounded by `limit` (a number of
 *   bytes, or a function of the authenticated request), not parsed: the handler parses them.
 */
import { SetMetadata } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { ApiError } from './api-error.js';
import { hasBody, MiB, readBody } from './body-reader.js';
import type { ServiceRequest } from './request-context.js';

export const RAW_BODY_METADATA = 'svc:raw-body';

/**
 * A byte limit, fixed or computed from the authenticated request (e.g. from its plan, read through
 * the DataSource the guard hands over).
 */
export type BodyLimit = number | ((req: ServiceRequest, db: DataSource) => number | Promise<number>);

/** The default limit of a JSON body. */
export const JSON_LIMIT = MiB;

/** Deeper JSON than any route accepts; refused before recursive code (fingerprints, validation) sees it. */
export const MAX_JSON_DEPTH = 32;

/**
 * The route reads its own body: after authentication the guard stores the decoded bytes (at most
 * `limit`, 413 beyond) as a Buffer in `req.body` and does not parse them.
 */
export const RawBody = (limit: BodyLimit): MethodDecorator & ClassDecorator =>
  SetMetadata(RAW_BODY_METADATA, limit);

const JSON_TYPES = ['application/json', 'application/*+json'];

function invalid(message: string): ApiError {
  return new ApiError(400, 'invalid_request', message);
}

/** Reads (and for JSON routes parses and checks) the body of an authenticated request into `req.body`. */
export async function readApiBody(
  req: ServiceRequest,
  raw: BodyLimit | undefined,
  db: DataSource,
): Promise<void> {
  if (!hasBody(req)) return;
  if (raw !== undefined) {
    const limit = typeof raw === 'function' ? await raw(req, db) : raw;
    req.body = await readBody(req, limit);
    return;
  }
  const isJson = req.is(JSON_TYPES) !== false;
  if (!isJson) {
    const nonEmpty =
      Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
    if (nonEmpty && (req.method === 'POST' || req.method === 'PATCH' || req.method === 'PUT')) {
      throw invalid('Content-Type must be application/json');
    }
    // Another content type on another method (e.g. DELETE with a text body): not read, as in v1.
    return;
  }
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(String(req.headers['content-type']))?.[1];
  if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
    throw invalid('Unsupported charset; send UTF-8 JSON');
  }
  const bytes = await readBody(req, JSON_LIMIT);
  req.body = parseJsonBody(bytes);
}

/**
 * JSON text → value, as body-parser's strict mode did (an object or array at the top; an empty body
 * is `{}`), then the depth limit and, unless `checkStrings` is false, the Unicode rule.
 */
export function parseJsonBody(bytes: Buffer, checkStrings = true): unknown {
  let text = bytes.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const trimmed = text.trimStart();
  if (trimmed.length === 0) return {};
  if (trimmed[0] !== '{' && trimmed[0] !== '[') throw invalid('Request body is not valid JSON');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid('Request body is not valid JSON');
  }
  if (jsonDepthExceeds(value, MAX_JSON_DEPTH)) throw invalid('Request body is nested too deeply');
  if (checkStrings) assertWellFormedStrings(value);
  return value;
}

export function jsonDepthExceeds(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v as Record<string, unknown>)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** ES2024's String.prototype.isWellFormed (Node 20); the project's TypeScript lib is ES2023. */
const isWellFormed = String.prototype['isWellFormed' as keyof string] as (this: string) => boolean;

/** Well-formed Unicode (no lone surrogate) that PostgreSQL text can hold (no NUL). */
const storable = (s: string): boolean => isWellFormed.call(s) && !s.includes('\u0000');

/** Where the first string PostgreSQL could not store is: a value (dotted path) or an object key. */
export function malformedString(value: unknown): { path: string; inKey: boolean } | undefined {
  // Depth-first in document order, so the first offending field of the body is named.
  const stack: Array<[unknown, string]> = [[value, '']];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (!storable(v)) return { path: path || 'body', inKey: false };
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i -= 1) stack.push([v[i], path ? `${path}.${i}` : String(i)]);
    } else if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v as Record<string, unknown>);
      for (const [k] of entries) if (!storable(k)) return { path: path || 'body', inKey: true };
      for (let i = entries.length - 1; i >= 0; i -= 1) {
        const [k, item] = entries[i];
        stack.push([item, path ? `${path}.${k}` : k]);
      }
    }
  }
  return undefined;
}

/** 422 naming the field for a bad value, 400 for a bad key (its name cannot be echoed as a field). */
export function assertWellFormedStrings(value: unknown): void {
  const bad = malformedString(value);
  if (!bad) return;
  if (bad.inKey) {
    throw invalid(
      `An object key ${bad.path === 'body' ? 'of the body' : `in ${bad.path}`} is not valid Unicode text or holds a NUL character`,
    );
  }
  throw ApiError.validation(bad.path, `${bad.path} must be valid Unicode text without NUL characters`);
}
