import { createDataSource } from '../src/database/data-source.js';
import { runMigrations } from '../src/database/migrate.js';
import { pendingSchemaChanges } from '../src/database/schema-drift.js';

describe('schema: migrations only', () => {
  it('entities and migrations agree (generating a migration after migrating yields nothing)', async () => {
    await runMigrations();
    const ds = createDataSource();
    await ds.initialize();
    try {
      const { up } = await pendingSchemaChanges(ds);
      expect(up).toEqual([]);
      expect(ds.options.synchronize).toBe(false);
    } finally {
      await ds.destroy();
    }
  });
});
