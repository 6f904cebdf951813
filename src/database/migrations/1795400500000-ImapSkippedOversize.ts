import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * How many mails IMAP polling skipped for being over the 10 MiB limit: counted on the
 * inbox, in the same statement that moves the checkpoint past them, so a mail is counted once.
 */
export class ImapSkippedOversize1795400500000 implements MigrationInterface {
  name = 'ImapSkippedOversize1795400500000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE "inboxes" ADD "imap_skipped_oversize" integer NOT NULL DEFAULT \'0\'',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "inboxes" DROP COLUMN "imap_skipped_oversize"');
  }
}
