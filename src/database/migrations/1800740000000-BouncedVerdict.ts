import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A hard bounce's verdict outlasts later checks (CONTRACT §24): `contacts.verification_bounced_at`,
 * set with the `invalid` / `mailbox_unknown` verdict a hard bounce writes, keeps every later check
 * (the verify route, a queued re-check, the background pass) from replacing it. Contacts that a hard
 * bounce made invalid before this (verdict `mailbox_unknown` alone on a contact suppressed `bounced`;
 * the SMTP probe, the only other source of that reason, is off by default) get the time of that
 * verdict. Nullable, no default: no table rewrite.
 */
export class BouncedVerdict1800740000000 implements MigrationInterface {
  name = 'BouncedVerdict1800740000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "contacts" ADD COLUMN IF NOT EXISTS "verification_bounced_at" TIMESTAMP(3) WITH TIME ZONE`,
    );
    await queryRunner.query(
      `UPDATE "contacts" SET "verification_bounced_at" = coalesce("verification_checked_at", "suppressed_at", now())
       WHERE "verification_status" = 'invalid' AND "verification_reasons" = ARRAY['mailbox_unknown']
         AND "suppression_reason" = 'bounced' AND "verification_bounced_at" IS NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "contacts" DROP COLUMN "verification_bounced_at"`);
  }
}
