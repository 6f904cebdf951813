import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sending-domain health runs one check per inbox at a time across processes (CONTRACT §26): the
 * process that checks claims the inbox until `health_checking_until`; others wait for its answer.
 */
export class InboxHealthCheckClaim1800350000000 implements MigrationInterface {
  name = 'InboxHealthCheckClaim1800350000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "inboxes" ADD "health_checking_until" TIMESTAMP(3) WITH TIME ZONE`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "inboxes" DROP COLUMN "health_checking_until"`);
  }
}
