/** Applies pending migrations under a PostgreSQL advisory lock, so concurrent processes never race. */
import { createDataSource } from './data-source.js';

const LOCK_ID = 72_410_031;

export async function runMigrations(url?: string): Promise<string[]> {
  const ds = createDataSource(url);
  ds.setOptions({ extra: { max: 1 } });
  await ds.initialize();
  try {
    await ds.query('SELECT pg_advisory_lock($1)', [LOCK_ID]);
    try {
      const applied = await ds.runMigrations({ transaction: 'each' });
      return applied.map((m) => m.name);
    } finally {
      await ds.query('SELECT pg_advisory_unlock($1)', [LOCK_ID]);
    }
  } finally {
    await ds.destroy();
  }
}
