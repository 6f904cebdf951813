import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Addresses checked before the first send (CONTRACT §24): each contact's verdict (status, reasons,
 * typo suggestion, when it was checked) and when the background check is due (`verification_due_at`:
 * now for a new contact, later for an `unknown` one to be checked again, null when nothing is due;
 * a claimed contact's due time is pushed forward by the claim's lease). Existing contacts start
 * `pending` and due now, so the worker checks them in the background like new ones. A campaign's
 * `verification` setting; the step counters of the skips.
 */
export class AddressVerification1800400000000 implements MigrationInterface {
  name = 'AddressVerification1800400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const sql of [
      `ALTER TABLE "contacts" ADD "verification_status" text NOT NULL DEFAULT 'pending'`,
      `ALTER TABLE "contacts" ADD "verification_reasons" text array NOT NULL DEFAULT '{}'`,
      `ALTER TABLE "contacts" ADD "verification_suggestion" text`,
      `ALTER TABLE "contacts" ADD "verification_checked_at" TIMESTAMP(3) WITH TIME ZONE`,
      `ALTER TABLE "contacts" ADD "verification_due_at" TIMESTAMP(3) WITH TIME ZONE DEFAULT now()`,
      `CREATE INDEX "idx_contacts_verification" ON "contacts" ("workspace_id", "verification_status", "created_at", "id")`,
      `CREATE INDEX "idx_contacts_verification_due" ON "contacts" ("verification_due_at") WHERE verification_due_at IS NOT NULL`,
      `ALTER TABLE "campaigns" ADD "verification" text NOT NULL DEFAULT 'skip_invalid'`,
      `ALTER TABLE "step_metrics" ADD "skipped_invalid" integer NOT NULL DEFAULT 0`,
      `ALTER TABLE "step_metrics" ADD "skipped_risky" integer NOT NULL DEFAULT 0`,
    ]) {
      await queryRunner.query(sql);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "step_metrics" DROP COLUMN "skipped_risky"`);
    await queryRunner.query(`ALTER TABLE "step_metrics" DROP COLUMN "skipped_invalid"`);
    await queryRunner.query(`ALTER TABLE "campaigns" DROP COLUMN "verification"`);
    await queryRunner.query(`DROP INDEX "idx_contacts_verification_due"`);
    await queryRunner.query(`DROP INDEX "idx_contacts_verification"`);
    for (const c of ['due_at', 'checked_at', 'suggestion', 'reasons', 'status']) {
      await queryRunner.query(`ALTER TABLE "contacts" DROP COLUMN "verification_${c}"`);
    }
  }
}
