import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Conversations and signals (docs/conversations.md):
 * - `daily_metrics.complained`: spam complaints (RFC 5965 feedback reports) per campaign and day.
 * - `messages.idempotency_key` (internal): the Idempotency-Key of a manual reply
 *   (`POST /threads/{id}/messages`), unique per workspace, so a retry after a crash mid-SMTP finds
 *   the message already recorded instead of sending it again.
 * - `threads.replied_at` (internal): when the contact first replied in the thread, for the
 *   `has_reply` filter of `GET /threads`; backfilled from the recorded replies. Each value of the
 *   filter has its own partial index, so a filtered page costs what an unfiltered one does.
 */
export class Conversations1799400000000 implements MigrationInterface {
  name = 'Conversations1799400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const sql of [
      `ALTER TABLE "daily_metrics" ADD "complained" integer NOT NULL DEFAULT '0'`,
      'ALTER TABLE "messages" ADD "idempotency_key" text',
      'CREATE UNIQUE INDEX "idx_messages_idempotency_key" ON "messages" ("workspace_id", "idempotency_key") WHERE idempotency_key IS NOT NULL',
      'ALTER TABLE "threads" ADD "replied_at" TIMESTAMP(3) WITH TIME ZONE',
      `UPDATE "threads" t SET "replied_at" = x.at
       FROM (SELECT thread_id, min(coalesce(received_at, created_at)) AS at FROM "messages"
             WHERE direction = 'inbound' AND kind = 'reply' GROUP BY thread_id) x
       WHERE t.id = x.thread_id`,
      'CREATE INDEX "idx_threads_replied" ON "threads" ("workspace_id", "created_at", "id") WHERE replied_at IS NOT NULL',
      'CREATE INDEX "idx_threads_not_replied" ON "threads" ("workspace_id", "created_at", "id") WHERE replied_at IS NULL',
    ]) {
      await queryRunner.query(sql);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const sql of [
      'DROP INDEX "idx_threads_not_replied"',
      'DROP INDEX "idx_threads_replied"',
      'ALTER TABLE "threads" DROP COLUMN "replied_at"',
      'DROP INDEX "idx_messages_idempotency_key"',
      'ALTER TABLE "messages" DROP COLUMN "idempotency_key"',
      'ALTER TABLE "daily_metrics" DROP COLUMN "complained"',
    ]) {
      await queryRunner.query(sql);
    }
  }
}
