#!/usr/bin/env node
/**
 * The raw baseline for the GET /me benchmark: node:http + pg doing what the service's credential path
 * does against the database, and nothing else: parse the bearer token and check its checksum, HMAC it
 * with the pepper, run the service's own lookup query (LOOKUP_SQL, imported from dist/), answer JSON.
 * No framework, no rate limit, no logging. Same pool size as the service (DB_POOL_SIZE, default 20).
 *
 * Env: DATABASE_URL, API_KEY_PEPPER, PORT. Prints `listening on <port>` once ready.
 */
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = (p) => pathToFileURL(join(root, 'dist', p)).href;
const { hashToken, parseToken } = await import(dist('common/auth/token.js'));
const { LOOKUP_SQL } = await import(dist('modules/api-keys/api-key-auth.service.js'));

const pepper = process.env.API_KEY_PEPPER;
const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DB_POOL_SIZE || 20),
});

function send(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

const server = createServer((req, res) => {
  const match = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
  const token = match?.[1];
  if (!token || !parseToken(token)) return send(res, 401, { error: { type: 'authentication_failed' } });
  pool.query(LOOKUP_SQL, [hashToken(token, pepper)]).then(
    ({ rows: [row] }) => {
      if (!row || row.revoked_at || (row.expires_at && row.expires_at <= new Date())) {
        return send(res, 401, { error: { type: 'authentication_failed' } });
      }
      send(res, 200, {
        data: {
          tier: row.tier,
          name: row.name,
          prefix: row.prefix,
          scopes: row.scopes,
          workspace_id: row.workspace_id,
          organization_id: row.org_id,
          rate_limit: { limit: row.rate_limit ?? row.org_rate_limit ?? 600, window_seconds: 60 },
          expires_at: row.expires_at,
          allowed_ips: row.allowed_ips,
        },
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
