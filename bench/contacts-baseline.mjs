#!/usr/bin/env node
/**
 * The raw baseline for the GET /contacts benchmark (bench/contacts.mjs): node:http + pg running the
 * keyset query the service runs for `GET /api/v1/contacts?per_page=N[&cursor=…]` and answering the same
 * collection envelope (contact views, signed next/prev cursors, links, meta). No framework, no rate limit,
 * no logging; the bearer token is compared with BENCH_TOKEN in memory (the service caches its key lookup,
 * so no key query here either). Cursors are `base64url(JSON).hmac` signed with CURSOR_KEY, bound to the
 * workspace and route as the service's are. Same pool size as the service (DB_POOL_SIZE, default 20).
 *
 * Env: DATABASE_URL, WORKSPACE_ID, BENCH_TOKEN, CURSOR_KEY (hex), PUBLIC_URL, PORT.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import pg from 'pg';

const workspaceId = process.env.WORKSPACE_ID;
const token = process.env.BENCH_TOKEN;
const cursorKey = Buffer.from(process.env.CURSOR_KEY ?? '', 'hex');
const publicUrl = process.env.PUBLIC_URL ?? 'http://localhost';
const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DB_POOL_SIZE || 20),
});

const COLUMNS = `id, email, first_name, last_name, company, title, phone, timezone, custom_fields,
  stage, source, suppression_reason, suppressed_at, created_at, updated_at`;
// The service's query (pagination.ts + TenantRepository.query): workspace filter, keyset condition,
// ORDER BY created_at DESC, id DESC, LIMIT per_page + 1.
const FIRST_SQL = `SELECT ${COLUMNS} FROM contacts WHERE workspace_id = $1
  ORDER BY created_at DESC, id DESC LIMIT $2`;
const AFTER_SQL = `SELECT ${COLUMNS} FROM contacts WHERE workspace_id = $1
  AND (created_at, id) < ($3::timestamptz, $4) ORDER BY created_at DESC, id DESC LIMIT $2`;

const tag = (body) =>
  createHmac('sha256', cursorKey)
    .update(`${workspaceId}|contacts.index|${body}`)
    .digest()
    .subarray(0, 16)
    .toString('base64url');

function signCursor(payload) {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${tag(body)}`;
}

function readCursor(cursor) {
  const [body, sig, extra] = cursor.split('.');
  if (!body || !sig || extra !== undefined) return undefined;
  const expected = Buffer.from(tag(body));
  const given = Buffer.from(sig);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    const p = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    return p.d === 'n' && typeof p.t === 'string' && !Number.isNaN(Date.parse(p.t)) ? p : undefined;
  } catch {
    return undefined;
  }
}

const view = (r) => ({
  id: r.id,
  email: r.email,
  first_name: r.first_name,
  last_name: r.last_name,
  company: r.company,
  title: r.title,
  phone: r.phone,
  timezone: r.timezone,
  custom_fields: r.custom_fields ?? {},
  stage: r.stage,
  sendable: r.suppression_reason === null,
  suppression:
    r.suppression_reason === null
      ? null
      : { reason: r.suppression_reason, created_at: (r.suppressed_at ?? r.updated_at).toISOString() },
  source: r.source,
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
});

function send(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

const server = createServer((req, res) => {
  if (req.headers.authorization !== `Bearer ${token}`) {
    return send(res, 401, { error: { type: 'authentication_failed' } });
  }
  const url = new URL(req.url, 'http://x');
  const perPage = Number(url.searchParams.get('per_page') ?? 25);
  if (!Number.isInteger(perPage) || perPage < 1 || perPage > 100) {
    return send(res, 422, { error: { type: 'validation_failed' } });
  }
  const rawCursor = url.searchParams.get('cursor');
  const cursor = rawCursor ? readCursor(rawCursor) : undefined;
  if (rawCursor && !cursor) return send(res, 422, { error: { type: 'validation_failed' } });
  const query = cursor
    ? pool.query(AFTER_SQL, [workspaceId, perPage + 1, cursor.t, cursor.i])
    : pool.query(FIRST_SQL, [workspaceId, perPage + 1]);
  query.then(
    ({ rows }) => {
      const items = rows.slice(0, perPage);
      const first = items[0];
      const last = items[items.length - 1];
      const at = (d, r) => signCursor({ d, t: r.created_at.toISOString(), i: r.id });
      const next = rows.length > perPage && last ? at('n', last) : null;
      const prev = cursor && first ? at('p', first) : null;
      const path = `${publicUrl}/api/v1/contacts`;
      const link = (c) => `${path}?per_page=${perPage}${c ? `&cursor=${encodeURIComponent(c)}` : ''}`;
      send(res, 200, {
        data: items.map(view),
        next_cursor: next,
        links: {
          first: link(null),
          last: null,
          prev: prev ? link(prev) : null,
          next: next ? link(next) : null,
        },
        meta: { path, per_page: perPage, next_cursor: next, prev_cursor: prev },
      });
    },
    () => send(res, 500, { error: { type: 'internal_error' } }),
  );
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT || 0), '127.0.0.1', () => {
  console.log(`listening on ${server.address().port}`);
});
const stop = () => server.close(() => pool.end().then(() => process.exit(0)));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
