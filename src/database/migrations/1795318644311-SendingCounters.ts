import type { MigrationInterface, QueryRunner } from 'typeorm';

export class SendingCounters1795318644311 implements MigrationInterface {
  name = 'SendingCounters1795318644311';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const sql of [
      'CREATE TABLE "inbox_pacing" ("inbox_id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "next_send_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL, CONSTRAINT "PK_fd03ce045e8da393fe33c93361f" PRIMARY KEY ("inbox_id"))',
      'CREATE TABLE "send_counters" ("workspace_id" uuid NOT NULL, "scope" text NOT NULL, "key" text NOT NULL, "day" date NOT NULL, "sent" integer NOT NULL DEFAULT \'0\', CONSTRAINT "PK_30d6b5b7a180caf4a58a92cb968" PRIMARY KEY ("workspace_id", "scope", "key", "day"))',
    ]) {
      await queryRunner.query(sql);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const sql of ['DROP TABLE "send_counters"', 'DROP TABLE "inbox_pacing"']) {
      await queryRunner.query(sql);
    }
  }
}
