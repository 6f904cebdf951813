/**
 * Writes a migration with the SQL that brings the migrated schema to the entities, or reports that
 * none is needed. `npm run migration:generate -- Name` (needs DATABASE_URL; uses a scratch database).
 */
import { writeFileSync } from 'node:fs';
import { createDataSource } from '../database/data-source.js';
import { pendingSchemaChanges, withScratchDatabase } from '../database/schema-drift.js';

const name = process.argv[2];
if (!name || !/^[A-Z][A-Za-z0-9]+$/.test(name)) {
  console.error('usage: npm run migration:generate -- PascalCaseName');
  process.exit(2);
}

await withScratchDatabase(
  process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  async (url) => {
    const ds = createDataSource(url);
    await ds.initialize();
    await ds.runMigrations();
    const { up, down } = await pendingSchemaChanges(ds);
    await ds.destroy();
    if (up.length === 0) {
      console.log('No schema changes: entities and migrations agree.');
      return;
    }
    const ts = Date.now();
    const cls = `${name}${ts}`;
    const q = (s: string): string => '      ' + JSON.stringify(s) + ',';
    const file = `src/database/migrations/${ts}-${name}.ts`;
    writeFileSync(
      file,
      `import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ${cls} implements MigrationInterface {
  name = '${cls}';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const sql of [
${up.map(q).join('\n')}
    ]) {
      await queryRunner.query(sql);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const sql of [
${down.map(q).join('\n')}
    ]) {
      await queryRunner.query(sql);
    }
  }
}
`,
    );
    console.log(`wrote ${file}; add ${cls} to src/database/migrations/index.ts`);
  },
);
