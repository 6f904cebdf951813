import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Mail through the providers' own APIs (CONTRACT §25): how an OAuth inbox sends and reads
 * (`transport`: `smtp` over SMTP/IMAP with XOAUTH2, or `api`: Gmail API / Microsoft Graph), where its
 * API reading stands (`api_checkpoint`: a Gmail historyId or a Graph delta link), and until when a
 * provider asked it to wait before sending again (`send_held_until`, from a 429/503 `Retry-After`).
 */
export class ProviderApis1800500000000 implements MigrationInterface {
  name = 'ProviderApis1800500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "inboxes" ADD "transport" text NOT NULL DEFAULT 'smtp'`);
    await queryRunner.query(`ALTER TABLE "inboxes" ADD "api_checkpoint" text`);
    await queryRunner.query(`ALTER TABLE "inboxes" ADD "send_held_until" TIMESTAMP(3) WITH TIME ZONE`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const c of ['send_held_until', 'api_checkpoint', 'transport']) {
      await queryRunner.query(`ALTER TABLE "inboxes" DROP COLUMN "${c}"`);
    }
  }
}
