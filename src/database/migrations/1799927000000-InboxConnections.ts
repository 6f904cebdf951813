import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 27 (CONTRACT §19): how an inbox signs in (`auth`: password or oauth2, with the sealed OAuth
 * refresh token) and its ramp-up (the day's limit grows from `ramp_start` by `ramp_increase_per_day`
 * from `ramp_started_at`), and the last sending-domain health answer (cached an hour).
 */
export class InboxConnections1799927000000 implements MigrationInterface {
  name = 'InboxConnections1799927000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "inboxes" ADD "auth" text NOT NULL DEFAULT 'password'`);
    await queryRunner.query(`ALTER TABLE "inboxes" ADD "oauth_sealed" text`);
    await queryRunner.query(`ALTER TABLE "inboxes" ADD "ramp_start" integer`);
    await queryRunner.query(`ALTER TABLE "inboxes" ADD "ramp_increase_per_day" integer`);
    await queryRunner.query(`ALTER TABLE "inboxes" ADD "ramp_started_at" TIMESTAMP(3) WITH TIME ZONE`);
    await queryRunner.query(`ALTER TABLE "inboxes" ADD "health" jsonb`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
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
