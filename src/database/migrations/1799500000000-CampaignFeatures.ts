import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Campaign features of issue 16 (docs/campaign-features.md): campaign `start_at`,
 * `send_in_contact_timezone`, `stop_on_reply_scope`, `paused_reason` and the bounce-protection window
 * marker; message `variant` and `bounced_at` (internal); `step_metrics`, the counters per campaign, day,
 * step and variant. Every new column is nullable or has a default, so adding them rewrites no table;
 * campaigns already paused were paused by hand (`paused_reason: manual`).
 */
export class CampaignFeatures1799500000000 implements MigrationInterface {
  name = 'CampaignFeatures1799500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const sql of [
      'CREATE TABLE "step_metrics" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "workspace_id" uuid NOT NULL, "campaign_id" bigint NOT NULL, "date" date NOT NULL, "step_position" integer NOT NULL, "variant" text NOT NULL, "sent" integer NOT NULL DEFAULT \'0\', "replied" integer NOT NULL DEFAULT \'0\', "bounced" integer NOT NULL DEFAULT \'0\', "unsubscribed" integer NOT NULL DEFAULT \'0\', CONSTRAINT "PK_d4fce8aef25b11c905b99055214" PRIMARY KEY ("id"))',
      'CREATE UNIQUE INDEX "IDX_a8b3d26812f72b695b8e475d2c" ON "step_metrics" ("workspace_id", "campaign_id", "date", "step_position", "variant")',
      'ALTER TABLE "campaigns" ADD "start_at" TIMESTAMP(3) WITH TIME ZONE',
      'ALTER TABLE "campaigns" ADD "send_in_contact_timezone" boolean NOT NULL DEFAULT false',
      'ALTER TABLE "campaigns" ADD "stop_on_reply_scope" text NOT NULL DEFAULT \'contact\'',
      'ALTER TABLE "campaigns" ADD "paused_reason" text',
      'ALTER TABLE "campaigns" ADD "bounce_window_started_at" TIMESTAMP(3) WITH TIME ZONE',
      'ALTER TABLE "messages" ADD "variant" text',
      'ALTER TABLE "messages" ADD "bounced_at" TIMESTAMP(3) WITH TIME ZONE',
      `UPDATE "campaigns" SET "paused_reason" = 'manual' WHERE "status" = 'paused'`,
    ]) {
      await queryRunner.query(sql);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const sql of [
      'ALTER TABLE "messages" DROP COLUMN "bounced_at"',
      'ALTER TABLE "messages" DROP COLUMN "variant"',
      'ALTER TABLE "campaigns" DROP COLUMN "bounce_window_started_at"',
      'ALTER TABLE "campaigns" DROP COLUMN "paused_reason"',
      'ALTER TABLE "campaigns" DROP COLUMN "stop_on_reply_scope"',
      'ALTER TABLE "campaigns" DROP COLUMN "send_in_contact_timezone"',
      'ALTER TABLE "campaigns" DROP COLUMN "start_at"',
      'DROP INDEX "public"."IDX_a8b3d26812f72b695b8e475d2c"',
      'DROP TABLE "step_metrics"',
    ]) {
      await queryRunner.query(sql);
    }
  }
}
