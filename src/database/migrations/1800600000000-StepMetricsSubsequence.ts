import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Step counters per subsequence (CONTRACT §23): `step_metrics.subsequence_id` joins the row's unique
 * key, so a subsequence's step 1 and the campaign's own step 1 are counted apart. 0 stands for the
 * campaign's own steps (not null, like `step_position` 0 and `variant` '', so that ON CONFLICT covers
 * the key); existing rows get 0. A constant default: no table rewrite.
 */
export class StepMetricsSubsequence1800600000000 implements MigrationInterface {
  name = 'StepMetricsSubsequence1800600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "step_metrics" ADD COLUMN IF NOT EXISTS "subsequence_id" bigint NOT NULL DEFAULT 0`,
    );
    await queryRunner.query('DROP INDEX IF EXISTS "IDX_a8b3d26812f72b695b8e475d2c"');
    await queryRunner.query(
      `CREATE UNIQUE INDEX IF NOT EXISTS "uq_step_metrics_row" ON "step_metrics" ("workspace_id", "campaign_id", "date", "subsequence_id", "step_position", "variant")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX IF EXISTS "uq_step_metrics_row"');
    // Back to one row per campaign, day, step and variant: a subsequence's counters join the campaign's.
    await queryRunner.query(
      `INSERT INTO "step_metrics" ("workspace_id", "campaign_id", "date", "step_position", "variant", "sent", "replied", "interested", "bounced", "soft_bounced", "unsubscribed", "skipped_invalid", "skipped_risky", "subsequence_id")
       SELECT "workspace_id", "campaign_id", "date", "step_position", "variant", sum("sent"), sum("replied"), sum("interested"), sum("bounced"), sum("soft_bounced"), sum("unsubscribed"), sum("skipped_invalid"), sum("skipped_risky"), -1
       FROM "step_metrics" GROUP BY "workspace_id", "campaign_id", "date", "step_position", "variant"`,
    );
    await queryRunner.query(`DELETE FROM "step_metrics" WHERE "subsequence_id" <> -1`);
    await queryRunner.query(`ALTER TABLE "step_metrics" DROP COLUMN "subsequence_id"`);
    await queryRunner.query(
      'CREATE UNIQUE INDEX IF NOT EXISTS "IDX_a8b3d26812f72b695b8e475d2c" ON "step_metrics" ("workspace_id", "campaign_id", "date", "step_position", "variant")',
    );
  }
}
