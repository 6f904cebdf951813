import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The events outbox, cheaper to write: no index on workspace_id (no query reads events by
 * workspace), and `data` as json (written once, read once whole, never queried inside). The type
 * change keeps every row (USING), unlike the DROP/ADD COLUMN the generator would write.
 */
export class LighterOutbox1795327746302 implements MigrationInterface {
  name = 'LighterOutbox1795327746302';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const sql of [
      'DROP INDEX "public"."IDX_a4a6e94b5357bba950eb90120f"',
      'ALTER TABLE "events" ALTER COLUMN "data" TYPE json USING "data"::json',
    ]) {
      await queryRunner.query(sql);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const sql of [
      'ALTER TABLE "events" ALTER COLUMN "data" TYPE jsonb USING "data"::jsonb',
      'CREATE INDEX "IDX_a4a6e94b5357bba950eb90120f" ON "events" USING btree ("workspace_id") ',
    ]) {
      await queryRunner.query(sql);
    }
  }
}
