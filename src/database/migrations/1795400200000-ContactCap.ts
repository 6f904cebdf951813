import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The plan's contact cap, held atomically on every path: a per-workspace contact
 * count kept exact by statement-level triggers on `contacts` (inserted rows counted from the
 * transition table, so a bulk INSERT costs one counter update, and a merge that inserts nothing
 * costs none). The counter row's update is the per-workspace lock: concurrent creators of one
 * workspace take turns on it until commit, and the insert trigger refuses (SQLSTATE PL001) a
 * statement that would leave the workspace over its plan's max_contacts_per_workspace. No entity:
 * only the triggers write the table, and the cap checks read it with SQL (src/modules/contacts/contact-cap.ts).
 */
export class ContactCap1795400200000 implements MigrationInterface {
  name = 'ContactCap1795400200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const sql of [
      `CREATE TABLE "workspace_contact_counts" (
        "workspace_id" uuid NOT NULL PRIMARY KEY REFERENCES "workspaces" ("id") ON DELETE CASCADE,
        "contacts" integer NOT NULL DEFAULT 0)`,
      `INSERT INTO "workspace_contact_counts" ("workspace_id", "contacts")
        SELECT "workspace_id", count(*)::int FROM "contacts" GROUP BY "workspace_id"`,
      `CREATE FUNCTION "contacts_count_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        over_cap record;
      BEGIN
        WITH d AS (SELECT workspace_id, count(*)::int AS n FROM inserted_contacts GROUP BY workspace_id),
        u AS (
          INSERT INTO workspace_contact_counts AS k (workspace_id, contacts)
          SELECT workspace_id, n FROM d
          ON CONFLICT (workspace_id) DO UPDATE SET contacts = k.contacts + EXCLUDED.contacts
          RETURNING k.workspace_id, k.contacts
        )
        SELECT u.workspace_id, u.contacts, o.max_contacts_per_workspace AS cap INTO over_cap
        FROM u JOIN workspaces w ON w.id = u.workspace_id JOIN organizations o ON o.id = w.organization_id
        WHERE u.contacts > o.max_contacts_per_workspace
        LIMIT 1;
        IF FOUND THEN
          RAISE EXCEPTION 'The workspace would have % contacts; its plan allows % (max_contacts_per_workspace)',
            over_cap.contacts, over_cap.cap
            USING ERRCODE = 'PL001';
        END IF;
        RETURN NULL;
      END $$`,
      `CREATE TRIGGER "contacts_count_insert" AFTER INSERT ON "contacts"
        REFERENCING NEW TABLE AS inserted_contacts FOR EACH STATEMENT
        EXECUTE FUNCTION "contacts_count_inserted"()`,
      `CREATE FUNCTION "contacts_count_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE workspace_contact_counts k SET contacts = k.contacts - d.n
        FROM (SELECT workspace_id, count(*)::int AS n FROM deleted_contacts GROUP BY workspace_id) d
        WHERE k.workspace_id = d.workspace_id;
        RETURN NULL;
      END $$`,
      `CREATE TRIGGER "contacts_count_delete" AFTER DELETE ON "contacts"
        REFERENCING OLD TABLE AS deleted_contacts FOR EACH STATEMENT
        EXECUTE FUNCTION "contacts_count_deleted"()`,
      `CREATE FUNCTION "contacts_count_truncated"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM workspace_contact_counts;
        RETURN NULL;
      END $$`,
      `CREATE TRIGGER "contacts_count_truncate" AFTER TRUNCATE ON "contacts"
        FOR EACH STATEMENT EXECUTE FUNCTION "contacts_count_truncated"()`,
    ]) {
      await queryRunner.query(sql);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const sql of [
      'DROP TRIGGER "contacts_count_truncate" ON "contacts"',
      'DROP TRIGGER "contacts_count_delete" ON "contacts"',
      'DROP TRIGGER "contacts_count_insert" ON "contacts"',
      'DROP FUNCTION "contacts_count_truncated"()',
      'DROP FUNCTION "contacts_count_deleted"()',
      'DROP FUNCTION "contacts_count_inserted"()',
      'DROP TABLE "workspace_contact_counts"',
    ]) {
      await queryRunner.query(sql);
    }
  }
}
