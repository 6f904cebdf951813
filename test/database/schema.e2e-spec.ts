import { createDataSource } from '../../src/database/data-source.js';
import { runMigrations } from '../../src/database/migrate.js';
import { pendingSchemaChanges } from '../../src/database/schema-drift.js';

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
    const { bootApp } = await import('../helpers/app.js');
    const { DataSource } = await import('typeorm');
    const { ENTITIES } = await import('../../src/database/entities.js');
    const app = await bootApp();
    try {
      const loaded = app
        .get(DataSource)
        .entityMetadatas.map((m) => (m.target as { name: string }).name)
        .sort();
      expect(loaded).toEqual(ENTITIES.map((e) => e.name).sort());
    } finally {
      // Bull names its blocking connection (CLIENT SETNAME) just after the processor starts; an app
      // closed within that moment makes bull reject with `undefined`, unhandled (bull/lib/worker.js),
      // which fails this test at random. Let the queue settle before closing.
      const { getQueueToken } = await import('@nestjs/bull');
      const { QueueName } = await import('../../src/common/queue/queues.js');
      const queue = app.get<{ isReady(): Promise<unknown> }>(getQueueToken(QueueName.Imports), {
        strict: false,
      });
      await queue.isReady();
      await new Promise((resolve) => setTimeout(resolve, 300));
      await app.close();
    }
  });
});
