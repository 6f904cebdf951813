import type { MigrationInterface, QueryRunner } from 'typeorm';

export class WorkspaceData1795318342163 implements MigrationInterface {
  name = 'WorkspaceData1795318342163';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const sql of [
      'CREATE TABLE "daily_metrics" ("id" integer GENERATED ALWAYS AS IDENTITY NOT NULL, "workspace_id" uuid NOT NULL, "date" date NOT NULL, "campaign_id" integer NOT NULL, "sent" integer NOT NULL DEFAULT \'0\', "replied" integer NOT NULL DEFAULT \'0\', "auto_replied" integer NOT NULL DEFAULT \'0\', "bounced" integer NOT NULL DEFAULT \'0\', "unsubscribed" integer NOT NULL DEFAULT \'0\', "enrolled" integer NOT NULL DEFAULT \'0\', "completed" integer NOT NULL DEFAULT \'0\', "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_0b33a3faffa5fbb3d4dad78c4e9" PRIMARY KEY ("id"))',
      'CREATE INDEX "IDX_c7ab8c29b9b3c0a50da6c617b6" ON "daily_metrics"  ("workspace_id", "created_at", "id") ',
      'CREATE UNIQUE INDEX "IDX_3b1d27a6c00c395ab738917cc4" ON "daily_metrics"  ("workspace_id", "date", "campaign_id") ',
      'CREATE TABLE "campaigns" ("id" integer GENERATED ALWAYS AS IDENTITY NOT NULL, "workspace_id" uuid NOT NULL, "name" text NOT NULL, "sequence_id" integer, "status" text NOT NULL DEFAULT \'draft\', "inbox_ids" uuid array NOT NULL DEFAULT \'{}\', "schedule" jsonb, "daily_limit" integer, "stop_on_reply" boolean NOT NULL DEFAULT true, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "activated_at" TIMESTAMP(3) WITH TIME ZONE, CONSTRAINT "PK_831e3fcd4fc45b4e4c3f57a9ee4" PRIMARY KEY ("id"))',
      'CREATE INDEX "IDX_6da5deaef4187b85468cb8f0eb" ON "campaigns"  ("workspace_id", "created_at", "id") ',
      'CREATE TABLE "contacts" ("id" integer GENERATED ALWAYS AS IDENTITY NOT NULL, "workspace_id" uuid NOT NULL, "email" text NOT NULL, "first_name" text, "last_name" text, "company" text, "title" text, "phone" text, "timezone" text, "custom_fields" jsonb NOT NULL DEFAULT \'{}\', "stage" text NOT NULL DEFAULT \'new\', "source" text NOT NULL DEFAULT \'api\', "suppression_reason" text, "suppressed_at" TIMESTAMP(3) WITH TIME ZONE, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_b99cd40cfd66a99f1571f4f72e6" PRIMARY KEY ("id"))',
      'CREATE INDEX "IDX_40031f6ca4a3e814d07a72eca5" ON "contacts"  ("workspace_id", "created_at", "id") ',
      'CREATE UNIQUE INDEX "IDX_37aee5a1b7b1ab5f21fa7cc283" ON "contacts"  ("workspace_id", "email") ',
      'CREATE TABLE "enrollments" ("id" integer GENERATED ALWAYS AS IDENTITY NOT NULL, "workspace_id" uuid NOT NULL, "campaign_id" integer NOT NULL, "contact_id" integer NOT NULL, "status" text NOT NULL DEFAULT \'active\', "current_step" integer NOT NULL DEFAULT \'0\', "next_step_at" TIMESTAMP(3) WITH TIME ZONE, "inbox_id" uuid, "stop_reason" text, "stop_note" text, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "completed_at" TIMESTAMP(3) WITH TIME ZONE, "stopped_at" TIMESTAMP(3) WITH TIME ZONE, CONSTRAINT "PK_7c0f752f9fb68bf6ed7367ab00f" PRIMARY KEY ("id"))',
      'CREATE INDEX "IDX_f03cab2ead5fb38b393bcee050" ON "enrollments"  ("contact_id") ',
      'CREATE INDEX "idx_enrollments_due" ON "enrollments"  ("next_step_at", "id") WHERE status = \'active\'',
      'CREATE INDEX "IDX_f97cdaaba3cd239f63c012883d" ON "enrollments"  ("workspace_id", "created_at", "id") ',
      'CREATE UNIQUE INDEX "IDX_89ffcc17e01cecfaf46f9eacd4" ON "enrollments"  ("campaign_id", "contact_id") ',
      'CREATE TABLE "imports" ("id" integer GENERATED ALWAYS AS IDENTITY NOT NULL, "workspace_id" uuid NOT NULL, "status" text NOT NULL DEFAULT \'queued\', "source" text NOT NULL DEFAULT \'api\', "update_existing" boolean NOT NULL DEFAULT true, "total_rows" integer NOT NULL DEFAULT \'0\', "processed_rows" integer NOT NULL DEFAULT \'0\', "created_count" integer NOT NULL DEFAULT \'0\', "updated_count" integer NOT NULL DEFAULT \'0\', "skipped_count" integer NOT NULL DEFAULT \'0\', "error_count" integer NOT NULL DEFAULT \'0\', "errors" jsonb NOT NULL DEFAULT \'[]\', "failure_reason" text, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "started_at" TIMESTAMP(3) WITH TIME ZONE, "finished_at" TIMESTAMP(3) WITH TIME ZONE, CONSTRAINT "PK_ea10c62f5eb1d75e83d8b5225db" PRIMARY KEY ("id"))',
      'CREATE INDEX "IDX_8191aed73ea02cdc2bbba3ebc3" ON "imports"  ("workspace_id", "created_at", "id") ',
      'CREATE TABLE "import_rows" ("import_id" integer NOT NULL, "row_number" integer NOT NULL, "data" jsonb NOT NULL, CONSTRAINT "PK_91bb5e34a40913867fcc14d42bc" PRIMARY KEY ("import_id", "row_number"))',
      'CREATE TABLE "inboxes" ("id" uuid NOT NULL DEFAULT uuid_generate_v4(), "workspace_id" uuid NOT NULL, "email" text NOT NULL, "display_name" text, "provider" text NOT NULL DEFAULT \'smtp\', "status" text NOT NULL DEFAULT \'active\', "daily_limit" integer NOT NULL DEFAULT \'50\', "sent_today" integer NOT NULL DEFAULT \'0\', "sent_today_date" date, "domain" text NOT NULL, "last_error_at" TIMESTAMP(3) WITH TIME ZONE, "last_error" text, "last_sent_at" TIMESTAMP(3) WITH TIME ZONE, "smtp_sealed" text NOT NULL, "imap_sealed" text, "imap_uid_validity" bigint, "imap_last_uid" integer, "inbound_secret_hash" text NOT NULL, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_902c6fe5be554398e6833bb099c" PRIMARY KEY ("id"))',
      'CREATE INDEX "IDX_d080d1044c3104528a65bcbf76" ON "inboxes"  ("workspace_id", "created_at", "id") ',
      'CREATE TABLE "sequences" ("id" integer GENERATED ALWAYS AS IDENTITY NOT NULL, "workspace_id" uuid NOT NULL, "name" text NOT NULL, "status" text NOT NULL DEFAULT \'draft\', "steps" jsonb NOT NULL DEFAULT \'[]\', "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "published_at" TIMESTAMP(3) WITH TIME ZONE, CONSTRAINT "PK_7c7f5d8c822411196242b89bc76" PRIMARY KEY ("id"))',
      'CREATE INDEX "IDX_972071361597e24c26d8a84bef" ON "sequences"  ("workspace_id", "created_at", "id") ',
      'CREATE TABLE "suppressions" ("id" integer GENERATED ALWAYS AS IDENTITY NOT NULL, "workspace_id" uuid NOT NULL, "email" text, "domain" text, "reason" text NOT NULL, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_77bb19dbc77a4ce0ca8cb743f3b" PRIMARY KEY ("id"))',
      'CREATE INDEX "IDX_0d2d1bc80e4180eb8ee2bdfece" ON "suppressions"  ("workspace_id", "created_at", "id") ',
      'CREATE UNIQUE INDEX "IDX_baa04e642eddb815d3d30a385a" ON "suppressions"  ("workspace_id", "domain") WHERE domain IS NOT NULL',
      'CREATE UNIQUE INDEX "IDX_731a36cff3f75d71523b8da21f" ON "suppressions"  ("workspace_id", "email") WHERE email IS NOT NULL',
      'CREATE TABLE "messages" ("id" integer GENERATED ALWAYS AS IDENTITY NOT NULL, "workspace_id" uuid NOT NULL, "thread_id" integer NOT NULL, "enrollment_id" integer, "direction" text NOT NULL, "kind" text NOT NULL, "from_address" text NOT NULL, "to_address" text NOT NULL, "subject" text, "body" text, "body_purged_at" TIMESTAMP(3) WITH TIME ZONE, "message_id" text, "in_reply_to" text, "status" text NOT NULL, "sent_at" TIMESTAMP(3) WITH TIME ZONE, "received_at" TIMESTAMP(3) WITH TIME ZONE, "step_position" integer, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_18325f38ae6de43878487eff986" PRIMARY KEY ("id"))',
      'CREATE INDEX "IDX_6187089f850b8deeca0232cfeb" ON "messages"  ("message_id") ',
      'CREATE UNIQUE INDEX "IDX_24d7b588fbc235c7b7d65afa24" ON "messages"  ("enrollment_id", "step_position") WHERE direction = \'outbound\'',
      'CREATE INDEX "IDX_3914c32fac6b28910a63feb9d2" ON "messages"  ("thread_id", "created_at", "id") ',
      'CREATE INDEX "IDX_81d0fbff93cbbda5c6db17664f" ON "messages"  ("workspace_id", "created_at", "id") ',
      'CREATE TABLE "threads" ("id" integer GENERATED ALWAYS AS IDENTITY NOT NULL, "workspace_id" uuid NOT NULL, "inbox_id" uuid NOT NULL, "contact_id" integer NOT NULL, "enrollment_id" integer, "campaign_id" integer, "subject" text NOT NULL, "message_count" integer NOT NULL DEFAULT \'0\', "last_message_at" TIMESTAMP(3) WITH TIME ZONE, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_d8a74804c34fc3900502cd27275" PRIMARY KEY ("id"))',
      'CREATE INDEX "IDX_a8b6bfc92b8991b3669967719b" ON "threads"  ("contact_id") ',
      'CREATE INDEX "IDX_9479550e2c5bbb338bb21944be" ON "threads"  ("enrollment_id") ',
      'CREATE INDEX "IDX_7cb3e73a99029faea0410e7a2b" ON "threads"  ("workspace_id", "created_at", "id") ',
      'CREATE TABLE "webhook_deliveries" ("id" integer GENERATED ALWAYS AS IDENTITY NOT NULL, "workspace_id" uuid NOT NULL, "endpoint_id" integer NOT NULL, "event_id" uuid NOT NULL, "event" text NOT NULL, "status" text NOT NULL DEFAULT \'pending\', "attempts" integer NOT NULL DEFAULT \'0\', "last_attempt_at" TIMESTAMP(3) WITH TIME ZONE, "next_attempt_at" TIMESTAMP(3) WITH TIME ZONE, "last_status_code" integer, "last_error" text, "last_duration_ms" integer, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_535dd409947fb6d8fc6dfc0112a" PRIMARY KEY ("id"))',
      'CREATE INDEX "idx_webhook_deliveries_due" ON "webhook_deliveries"  ("next_attempt_at") WHERE status = \'pending\'',
      'CREATE INDEX "IDX_3f867d0adaf5ef6a96eb4cccde" ON "webhook_deliveries"  ("endpoint_id", "created_at", "id") ',
      'CREATE UNIQUE INDEX "IDX_ce8ee1053d7a0687e786719605" ON "webhook_deliveries"  ("endpoint_id", "event_id") ',
      'CREATE TABLE "webhook_endpoints" ("id" integer GENERATED ALWAYS AS IDENTITY NOT NULL, "workspace_id" uuid NOT NULL, "url" text NOT NULL, "events" text array NOT NULL, "description" text, "status" text NOT NULL DEFAULT \'enabled\', "disabled_reason" text, "consecutive_failures" integer NOT NULL DEFAULT \'0\', "secret_sealed" text NOT NULL, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_054c4cfb95223732f5939d2d546" PRIMARY KEY ("id"))',
      'CREATE INDEX "IDX_f3cf18f89014c18e7379d2b770" ON "webhook_endpoints"  ("workspace_id", "created_at", "id") ',
    ]) {
      await queryRunner.query(sql);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const sql of [
      'DROP INDEX "public"."IDX_f3cf18f89014c18e7379d2b770"',
      'DROP TABLE "webhook_endpoints"',
      'DROP INDEX "public"."IDX_ce8ee1053d7a0687e786719605"',
      'DROP INDEX "public"."IDX_3f867d0adaf5ef6a96eb4cccde"',
      'DROP INDEX "public"."idx_webhook_deliveries_due"',
      'DROP TABLE "webhook_deliveries"',
      'DROP INDEX "public"."IDX_7cb3e73a99029faea0410e7a2b"',
      'DROP INDEX "public"."IDX_9479550e2c5bbb338bb21944be"',
      'DROP INDEX "public"."IDX_a8b6bfc92b8991b3669967719b"',
      'DROP TABLE "threads"',
      'DROP INDEX "public"."IDX_81d0fbff93cbbda5c6db17664f"',
      'DROP INDEX "public"."IDX_3914c32fac6b28910a63feb9d2"',
      'DROP INDEX "public"."IDX_24d7b588fbc235c7b7d65afa24"',
      'DROP INDEX "public"."IDX_6187089f850b8deeca0232cfeb"',
      'DROP TABLE "messages"',
      'DROP INDEX "public"."IDX_731a36cff3f75d71523b8da21f"',
      'DROP INDEX "public"."IDX_baa04e642eddb815d3d30a385a"',
      'DROP INDEX "public"."IDX_0d2d1bc80e4180eb8ee2bdfece"',
      'DROP TABLE "suppressions"',
      'DROP INDEX "public"."IDX_972071361597e24c26d8a84bef"',
      'DROP TABLE "sequences"',
      'DROP INDEX "public"."IDX_d080d1044c3104528a65bcbf76"',
      'DROP TABLE "inboxes"',
      'DROP TABLE "import_rows"',
      'DROP INDEX "public"."IDX_8191aed73ea02cdc2bbba3ebc3"',
      'DROP TABLE "imports"',
      'DROP INDEX "public"."IDX_89ffcc17e01cecfaf46f9eacd4"',
      'DROP INDEX "public"."IDX_f97cdaaba3cd239f63c012883d"',
      'DROP INDEX "public"."idx_enrollments_due"',
      'DROP INDEX "public"."IDX_f03cab2ead5fb38b393bcee050"',
      'DROP TABLE "enrollments"',
      'DROP INDEX "public"."IDX_37aee5a1b7b1ab5f21fa7cc283"',
      'DROP INDEX "public"."IDX_40031f6ca4a3e814d07a72eca5"',
      'DROP TABLE "contacts"',
      'DROP INDEX "public"."IDX_6da5deaef4187b85468cb8f0eb"',
      'DROP TABLE "campaigns"',
      'DROP INDEX "public"."IDX_3b1d27a6c00c395ab738917cc4"',
      'DROP INDEX "public"."IDX_c7ab8c29b9b3c0a50da6c617b6"',
      'DROP TABLE "daily_metrics"',
    ]) {
      await queryRunner.query(sql);
    }
  }
}
