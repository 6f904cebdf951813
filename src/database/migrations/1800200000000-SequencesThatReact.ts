import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sequences that react (CONTRACT §23):
 * - `subsequences`: a campaign's subsequences (trigger, sequence, delay, position, status);
 * - `enrollments.subsequence_id` / `parent_enrollment_id`: a subsequence enrollment is an enrollment of
 *   the same campaign, so the one-per-campaign unique index becomes one top-level enrollment per
 *   campaign and contact, plus one enrollment per subsequence and contact (each entered at most once);
 * - `enrollments.held_until` / `held_reason`: an out-of-office hold (the due time itself moves, so the
 *   due index never sees a held row);
 * - `threads.follow_up_at` / `referral_email`; `contacts.referred_by_contact_id`.
 * Nullable columns without defaults: no table rewrite.
 */
export class SequencesThatReact1800200000000 implements MigrationInterface {
  name = 'SequencesThatReact1800200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE IF NOT EXISTS "subsequences" (
        "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
        "workspace_id" uuid NOT NULL,
        "campaign_id" bigint NOT NULL,
        "name" text NOT NULL,
        "trigger" jsonb NOT NULL,
        "sequence_id" bigint NOT NULL,
        "start_after_days" integer NOT NULL DEFAULT 0,
        "position" integer NOT NULL,
        "status" text NOT NULL DEFAULT 'active',
        "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_subsequences" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX IF NOT EXISTS "idx_subsequences_campaign" ON "subsequences" ("workspace_id", "campaign_id", "position", "id")`,
    );
    await queryRunner.query(`ALTER TABLE "enrollments" ADD COLUMN IF NOT EXISTS "subsequence_id" bigint`);
    await queryRunner.query(
      `ALTER TABLE "enrollments" ADD COLUMN IF NOT EXISTS "parent_enrollment_id" bigint`,
    );
    await queryRunner.query(
      `ALTER TABLE "enrollments" ADD COLUMN IF NOT EXISTS "held_until" TIMESTAMP(3) WITH TIME ZONE`,
    );
    await queryRunner.query(`ALTER TABLE "enrollments" ADD COLUMN IF NOT EXISTS "held_reason" text`);
    await queryRunner.query('DROP INDEX IF EXISTS "IDX_89ffcc17e01cecfaf46f9eacd4"');
    await queryRunner.query(
      `CREATE UNIQUE INDEX IF NOT EXISTS "uq_enrollments_campaign_contact" ON "enrollments" ("campaign_id", "contact_id") WHERE subsequence_id IS NULL`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX IF NOT EXISTS "uq_enrollments_subsequence_contact" ON "enrollments" ("subsequence_id", "contact_id") WHERE subsequence_id IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX IF NOT EXISTS "idx_enrollments_subsequence" ON "enrollments" ("workspace_id", "subsequence_id", "created_at", "id") WHERE subsequence_id IS NOT NULL`,
    );
    await queryRunner.query(
      `ALTER TABLE "threads" ADD COLUMN IF NOT EXISTS "follow_up_at" TIMESTAMP(3) WITH TIME ZONE`,
    );
    await queryRunner.query(`ALTER TABLE "threads" ADD COLUMN IF NOT EXISTS "referral_email" text`);
    await queryRunner.query(
      `ALTER TABLE "contacts" ADD COLUMN IF NOT EXISTS "referred_by_contact_id" bigint`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "contacts" DROP COLUMN IF EXISTS "referred_by_contact_id"`);
    await queryRunner.query(`ALTER TABLE "threads" DROP COLUMN IF EXISTS "referral_email"`);
    await queryRunner.query(`ALTER TABLE "threads" DROP COLUMN IF EXISTS "follow_up_at"`);
    await queryRunner.query('DROP INDEX IF EXISTS "idx_enrollments_subsequence"');
    await queryRunner.query('DROP INDEX IF EXISTS "uq_enrollments_subsequence_contact"');
    await queryRunner.query('DROP INDEX IF EXISTS "uq_enrollments_campaign_contact"');
    await queryRunner.query(`DELETE FROM "enrollments" WHERE "subsequence_id" IS NOT NULL`);
    await queryRunner.query(
      'CREATE UNIQUE INDEX IF NOT EXISTS "IDX_89ffcc17e01cecfaf46f9eacd4" ON "enrollments" ("campaign_id", "contact_id")',
    );
    await queryRunner.query(`ALTER TABLE "enrollments" DROP COLUMN IF EXISTS "held_reason"`);
    await queryRunner.query(`ALTER TABLE "enrollments" DROP COLUMN IF EXISTS "held_until"`);
    await queryRunner.query(`ALTER TABLE "enrollments" DROP COLUMN IF EXISTS "parent_enrollment_id"`);
    await queryRunner.query(`ALTER TABLE "enrollments" DROP COLUMN IF EXISTS "subsequence_id"`);
    await queryRunner.query('DROP TABLE IF EXISTS "subsequences"');
  }
}
