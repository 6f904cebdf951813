import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Init1795318086464 implements MigrationInterface {
  name = 'Init1795318086464';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const sql of [
      'CREATE TABLE "idempotency_keys" ("tenant" text NOT NULL, "key" text NOT NULL, "fingerprint" text NOT NULL, "state" text NOT NULL, "response_status" integer, "response_sealed" text, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "expires_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL, CONSTRAINT "PK_9d285f9d9465e95410807ec9dec" PRIMARY KEY ("tenant", "key"))',
      'CREATE INDEX "IDX_e5fc0731b6752a8e9194fa265e" ON "idempotency_keys"  ("expires_at") ',
      'CREATE TABLE "api_keys" ("id" integer GENERATED ALWAYS AS IDENTITY NOT NULL, "tier" text NOT NULL, "name" text NOT NULL, "prefix" text NOT NULL, "token_hash" text NOT NULL, "scopes" text array NOT NULL DEFAULT \'{}\', "expires_at" TIMESTAMP(3) WITH TIME ZONE, "allowed_ips" text array NOT NULL DEFAULT \'{}\', "workspace_id" uuid, "organization_id" uuid, "rate_limit" integer, "revoked_at" TIMESTAMP(3) WITH TIME ZONE, "last_used_at" TIMESTAMP(3) WITH TIME ZONE, "created_by_key_id" integer, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_5c8a79801b44bd27b79228e1dad" PRIMARY KEY ("id"))',
      'CREATE UNIQUE INDEX "IDX_77f4ee004e33afac232c0a8fd1" ON "api_keys"  ("token_hash") ',
      'CREATE INDEX "IDX_deb68fe8625b21785d1c48283e" ON "api_keys"  ("workspace_id") ',
      'CREATE INDEX "IDX_a283bdef18876e525aefaec042" ON "api_keys"  ("organization_id") ',
      'CREATE TABLE "events" ("id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "type" text NOT NULL, "data" jsonb NOT NULL, "occurred_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL, "dispatched_at" TIMESTAMP(3) WITH TIME ZONE, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_40731c7151fe4be3116e45ddf73" PRIMARY KEY ("id"))',
      'CREATE INDEX "IDX_a4a6e94b5357bba950eb90120f" ON "events"  ("workspace_id") ',
      'CREATE INDEX "idx_events_undispatched" ON "events"  ("created_at") WHERE dispatched_at IS NULL',
      'CREATE TABLE "organizations" ("id" uuid NOT NULL DEFAULT uuid_generate_v4(), "name" text NOT NULL, "max_workspaces" integer NOT NULL DEFAULT \'10\', "max_contacts_per_workspace" integer NOT NULL DEFAULT \'100000\', "import_row_cap" integer NOT NULL DEFAULT \'100000\', "rate_limit" integer, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_6b031fcd0863e3f6b44230163f9" PRIMARY KEY ("id"))',
      'CREATE TABLE "workspaces" ("id" uuid NOT NULL DEFAULT uuid_generate_v4(), "organization_id" uuid NOT NULL, "name" text NOT NULL, "config" jsonb NOT NULL, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_098656ae401f3e1a4586f47fd8e" PRIMARY KEY ("id"))',
      'CREATE INDEX "IDX_0daf55a07c06032a536e9069f8" ON "workspaces"  ("organization_id", "created_at") ',
    ]) {
      await queryRunner.query(sql);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const sql of [
      'DROP INDEX "public"."IDX_0daf55a07c06032a536e9069f8"',
      'DROP TABLE "workspaces"',
      'DROP TABLE "organizations"',
      'DROP INDEX "public"."idx_events_undispatched"',
      'DROP INDEX "public"."IDX_a4a6e94b5357bba950eb90120f"',
      'DROP TABLE "events"',
      'DROP INDEX "public"."IDX_a283bdef18876e525aefaec042"',
      'DROP INDEX "public"."IDX_deb68fe8625b21785d1c48283e"',
      'DROP INDEX "public"."IDX_77f4ee004e33afac232c0a8fd1"',
      'DROP TABLE "api_keys"',
      'DROP INDEX "public"."IDX_e5fc0731b6752a8e9194fa265e"',
      'DROP TABLE "idempotency_keys"',
    ]) {
      await queryRunner.query(sql);
    }
  }
}
