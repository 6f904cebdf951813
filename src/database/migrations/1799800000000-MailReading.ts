import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Reading real mail (CONTRACT §18):
 * - `messages.bounce`: the bounce verdict `{reason, hard, status, smtp_code, diagnostic}`, on the sent
 *   message that bounced (set once: a second report about it changes nothing) and on the report itself;
 *   `messages.bounce_recorded_at` when that happened (the 30-day soft-bounce rule reads it);
 * - an index of outbound messages by recipient, so a report that quotes no Message-ID is matched by its
 *   failed recipient in O(log n);
 * - `soft_bounced` counters next to `bounced` in daily and step metrics.
 */
export class MailReading1799800000000 implements MigrationInterface {
  name = 'MailReading1799800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "messages" ADD COLUMN IF NOT EXISTS "bounce" jsonb`);
    await queryRunner.query(
      `ALTER TABLE "messages" ADD COLUMN IF NOT EXISTS "bounce_recorded_at" TIMESTAMP(3) WITH TIME ZONE`,
    );
    await queryRunner.query(
      `CREATE INDEX IF NOT EXISTS "idx_messages_outbound_to" ON "messages" ("workspace_id", "to_address", "id") WHERE direction = 'outbound'`,
    );
    await queryRunner.query(
      `ALTER TABLE "daily_metrics" ADD COLUMN IF NOT EXISTS "soft_bounced" integer NOT NULL DEFAULT 0`,
    );
    await queryRunner.query(
      `ALTER TABLE "step_metrics" ADD COLUMN IF NOT EXISTS "soft_bounced" integer NOT NULL DEFAULT 0`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "step_metrics" DROP COLUMN IF EXISTS "soft_bounced"`);
    await queryRunner.query(`ALTER TABLE "daily_metrics" DROP COLUMN IF EXISTS "soft_bounced"`);
    await queryRunner.query('DROP INDEX IF EXISTS "idx_messages_outbound_to"');
    await queryRunner.query(`ALTER TABLE "messages" DROP COLUMN IF EXISTS "bounce_recorded_at"`);
    await queryRunner.query(`ALTER TABLE "messages" DROP COLUMN IF EXISTS "bounce"`);
  }
}
