import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The account an OAuth inbox is connected with (the provider's subject, `sub`): reconnecting the inbox
 * with another account is refused, so a second account that shows the same address cannot take the
 * inbox over. Null for password inboxes and for OAuth inboxes connected before (bound at their next
 * connection).
 */
export class InboxOAuthSubject1800300000000 implements MigrationInterface {
  name = 'InboxOAuthSubject1800300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "inboxes" ADD "oauth_subject" text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "inboxes" DROP COLUMN "oauth_subject"`);
  }
}
