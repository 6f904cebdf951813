/**
 * One database per test run (created, migrated, dropped after) on the machine's PostgreSQL, and a
 * Redis key prefix per run, so runs never collide with each other or with other clients.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';

export default async function globalSetup(): Promise<void> {
  const admin = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `test_${Date.now()}_${randomBytes(3).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  process.env.TEST_DATABASE_NAME = name;
  process.env.DATABASE_URL = url.toString();
  process.env.REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
  process.env.REDIS_PREFIX = `test:${name}`;
  process.env.API_KEY_PEPPER = randomBytes(24).toString('base64url');
  process.env.ENCRYPTION_KEY = randomBytes(32).toString('hex');
  process.env.PUBLIC_URL = 'http://service.test';
  process.env.LOG_LEVEL = process.env.LOG_LEVEL ?? 'silent';
  process.env.ACCESS_LOG = 'false';
  // Every in-process exchange of the run, checked against openapi.json by test/openapi/traffic.e2e-spec.ts.
  process.env.OPENAPI_TRAFFIC_FILE = `${tmpdir()}/${name}-traffic.jsonl`;
  // Tests that run the service as deployed spawn dist/ (node dist/cli.js, dist/main.js): on a clean
  // clone build it once here. A stale dist/ is rebuilt by those tests themselves (ensureBuilt).
  // (Jest's moduleNameMapper does not apply to this file, hence no import of helpers/processes.ts.)
  if (!existsSync('dist/main.js') || !existsSync('dist/cli.js')) {
    spawnSync('npx', ['nest', 'build'], { stdio: 'ignore', env: { ...process.env, NODE_OPTIONS: '' } });
  }
}
