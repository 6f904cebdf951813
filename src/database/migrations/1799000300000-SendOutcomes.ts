import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * At most once under SMTP faults and crashes: `messages.error` (why a message failed,
 * shown in the API) and `messages.smtp_started_at` (internal: set just before the message's SMTP
 * conversation begins; a `sending` row without it was never handed to SMTP and may be sent again).
 */
export class SendOutcomes1799000300000 implements MigrationInterface {
  name = 'SendOutcomes1799000300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const sql of [
      'ALTER TABLE "messages" ADD "error" text',
      'ALTER TABLE "messages" ADD "smtp_started_at" TIMESTAMP(3) WITH TIME ZONE',
      // Rows left `sending` by an engine that did not know the phase: their conversation may have begun.
      `UPDATE "messages" SET "smtp_started_at" = "created_at" WHERE "status" = 'sending'`,
    ]) {
      await queryRunner.query(sql);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const sql of [
      'ALTER TABLE "messages" DROP COLUMN "smtp_started_at"',
      'ALTER TABLE "messages" DROP COLUMN "error"',
    ]) {
      await queryRunner.query(sql);
    }
  }
}
