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

describe('schema: entities', () => {
  it('the entities the modules register are exactly the tooling list (src/database/entities.ts)', async () => {
    const { bootApp } = await import('./helpers/app.js');
    const { DataSource } = await import('typeorm');
    const { ENTITIES } = await import('../src/database/entities.js');
    const app = await bootApp();
    try {
      const loaded = app
        .get(DataSource)
        .entityMetadatas.map((m) => (m.target as { name: string }).name)
        .sort();
      expect(loaded).toEqual(ENTITIES.map((e) => e.name).sort());
    } finally {
      await app.close();
    }
  });
});
