/** Compares the migrated schema with the entities (the TypeORM schema builder's pending SQL). */
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';

export async function pendingSchemaChanges(ds: DataSource): Promise<{ up: string[]; down: string[] }> {
  const sql = await ds.driver.createSchemaBuilder().log();
  return {
    up: sql.upQueries.map((q) => q.query),
    down: sql.downQueries.map((q) => q.query).reverse(),
  };
}

/** Runs `fn` against a freshly created database that is dropped afterwards. */
export async function withScratchDatabase<T>(adminUrl: string, fn: (url: string) => Promise<T>): Promise<T> {
  const name = `scratch_${Date.now()}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  try {
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    return await fn(url.toString());
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}
