import { rmSync } from 'node:fs';
import pg from 'pg';
import { Redis } from 'ioredis';

/** Drops every database of the run (one per worker, and those files made beside them) and its Redis keys. */
export default async function globalTeardown(): Promise<void> {
  const name = process.env.TEST_RUN_NAME;
  if (!name) return;
  if (process.env.TEST_RUN_DIR) rmSync(process.env.TEST_RUN_DIR, { recursive: true, force: true });
  const admin = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  // `<run>_w<n>` and what files derive from it (`<run>_w<n>_fleet`); the name is [a-z0-9_] only.
  const { rows } = await client.query<{ datname: string }>(
    `SELECT datname FROM pg_database WHERE datname LIKE $1`,
    [`${name}\\_%`],
  );
  for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
  await client.end();
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `test:${name}_*`, 'COUNT', 1000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
  redis.disconnect();
}
