import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes that keep the retention sweeps O(batch) however large the tables grow: dispatched events
 * by age, finished deliveries by age, and pending deliveries by event (an event is kept while a
 * delivery of it still waits, e.g. for its endpoint to be re-enabled).
 *
 * Plain CREATE INDEX: migrations run in a transaction, and at 1,000,000 rows each build takes a few
 * seconds with writes to the table blocked meanwhile. A larger installation can create them first
 * with CREATE INDEX CONCURRENTLY under the same names (outside a transaction); `IF NOT EXISTS` then
 * makes this migration a no-op (docs/performance.md, "Scale").
 */
export class RetentionIndexes1799100000000 implements MigrationInterface {
  name = 'RetentionIndexes1799100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const sql of [
      'CREATE INDEX IF NOT EXISTS "idx_events_dispatched" ON "events" ("created_at") WHERE dispatched_at IS NOT NULL',
      `CREATE INDEX IF NOT EXISTS "idx_webhook_deliveries_finished" ON "webhook_deliveries" ("created_at") WHERE status <> 'pending'`,
      `CREATE INDEX IF NOT EXISTS "idx_webhook_deliveries_pending_event" ON "webhook_deliveries" ("event_id") WHERE status = 'pending'`,
    ]) {
      await queryRunner.query(sql);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const name of [
      'idx_webhook_deliveries_pending_event',
      'idx_webhook_deliveries_finished',
      'idx_events_dispatched',
    ]) {
      await queryRunner.query(`DROP INDEX IF EXISTS "${name}"`);
    }
  }
}
