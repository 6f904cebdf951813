import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Manual replies left `sending` by a process that died mid-request are resolved by a sweep
 * (ManualReplySweeper): this partial index holds only manual messages in flight, so each pass reads
 * O(batch) entries however large `messages` grows.
 */
export class ManualReplySweep1799600000000 implements MigrationInterface {
  name = 'ManualReplySweep1799600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX IF NOT EXISTS "idx_messages_manual_sending" ON "messages" ("smtp_started_at") WHERE status = 'sending' AND kind = 'manual'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX IF EXISTS "idx_messages_manual_sending"');
  }
}
