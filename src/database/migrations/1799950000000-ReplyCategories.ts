import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Reply categories (CONTRACT §20, issue 28):
 * - `messages.category` / `category_source` on inbound replies, decided after the reply is recorded by
 *   the `reply-categorize` sweep; `category_lease_until` is the sweep's claim (a process that dies
 *   mid-way leaves a lease that expires, and the reply is taken again);
 * - a partial index of the replies still to categorise, so each sweep pass reads O(batch) entries;
 * - `threads.category`: the category of the thread's latest categorised reply (views, the
 *   `GET /threads?category=` filter), with its list-filter index (docs/lifecycle.md, "Lists at scale");
 * - `interested` counters next to `replied` in daily and step metrics.
 * Nullable columns without defaults and integer columns with a constant default: no table rewrite.
 */
export class ReplyCategories1799950000000 implements MigrationInterface {
  name = 'ReplyCategories1799950000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "messages" ADD COLUMN IF NOT EXISTS "category" text`);
    await queryRunner.query(`ALTER TABLE "messages" ADD COLUMN IF NOT EXISTS "category_source" text`);
    await queryRunner.query(
      `ALTER TABLE "messages" ADD COLUMN IF NOT EXISTS "category_lease_until" TIMESTAMP(3) WITH TIME ZONE`,
    );
    await queryRunner.query(
      `CREATE INDEX IF NOT EXISTS "idx_messages_uncategorised" ON "messages" ("id") WHERE kind = 'reply' AND category IS NULL`,
    );
    await queryRunner.query(`ALTER TABLE "threads" ADD COLUMN IF NOT EXISTS "category" text`);
    await queryRunner.query(
      `CREATE INDEX IF NOT EXISTS "idx_threads_category" ON "threads" ("workspace_id", "category", "created_at", "id") WHERE category IS NOT NULL`,
    );
    await queryRunner.query(
      `ALTER TABLE "daily_metrics" ADD COLUMN IF NOT EXISTS "interested" integer NOT NULL DEFAULT 0`,
    );
    await queryRunner.query(
      `ALTER TABLE "step_metrics" ADD COLUMN IF NOT EXISTS "interested" integer NOT NULL DEFAULT 0`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "step_metrics" DROP COLUMN IF EXISTS "interested"`);
    await queryRunner.query(`ALTER TABLE "daily_metrics" DROP COLUMN IF EXISTS "interested"`);
    await queryRunner.query('DROP INDEX IF EXISTS "idx_threads_category"');
    await queryRunner.query(`ALTER TABLE "threads" DROP COLUMN IF EXISTS "category"`);
    await queryRunner.query('DROP INDEX IF EXISTS "idx_messages_uncategorised"');
    await queryRunner.query(`ALTER TABLE "messages" DROP COLUMN IF EXISTS "category_lease_until"`);
    await queryRunner.query(`ALTER TABLE "messages" DROP COLUMN IF EXISTS "category_source"`);
    await queryRunner.query(`ALTER TABLE "messages" DROP COLUMN IF EXISTS "category"`);
  }
}
