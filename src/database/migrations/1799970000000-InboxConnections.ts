import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 27 (CONTRACT §19): how an inbox signs in (`auth`: password or oauth2, with the sealed OAuth
 * refresh token) and its ramp-up (the day's limit grows from `ramp_start` by `ramp_increase_per_day`
 * from `ramp_started_at`), the last sending-domain health answer (cached an hour), and the OAuth
 * connections begun and not finished (`oauth_flows`).
 */
export class InboxConnections1799970000000 implements MigrationInterface {
  name = 'InboxConnections1799970000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "inboxes" ADD "auth" text NOT NULL DEFAULT 'password'`);
    await queryRunner.query(`ALTER TABLE "inboxes" ADD "oauth_sealed" text`);
    await queryRunner.query(`ALTER TABLE "inboxes" ADD "oauth_connected_at" TIMESTAMP(3) WITH TIME ZONE`);
    await queryRunner.query(`ALTER TABLE "inboxes" ADD "ramp_start" integer`);
    await queryRunner.query(`ALTER TABLE "inboxes" ADD "ramp_increase_per_day" integer`);
    await queryRunner.query(`ALTER TABLE "inboxes" ADD "ramp_started_at" TIMESTAMP(3) WITH TIME ZONE`);
    await queryRunner.query(`ALTER TABLE "inboxes" ADD "health" jsonb`);
    await queryRunner.query(
      `CREATE TABLE "oauth_flows" ("state_hash" text NOT NULL, "workspace_id" uuid NOT NULL, "provider" text NOT NULL, "code_verifier_sealed" text NOT NULL, "return_url" text, "expires_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_oauth_flows" PRIMARY KEY ("state_hash"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_oauth_flows_expires_at" ON "oauth_flows" ("expires_at")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "oauth_flows"`);
    for (const c of [
      'health',
      'ramp_started_at',
      'ramp_increase_per_day',
      'ramp_start',
      'oauth_sealed',
      'auth',
    ]) {
      await queryRunner.query(`ALTER TABLE "inboxes" DROP COLUMN "${c}"`);
    }
  }
}
