import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * 64-bit identifiers on the high-volume tables (contacts, enrollments, threads, messages, webhook
 * deliveries, imports, suppressions), on the small integer-keyed ones, and on every column that
 * refers to them. An `integer` identity
 * runs out at 2,147,483,647: a busy multi-tenant installation reaches that in messages or webhook
 * deliveries within a few years. Ids stay JSON integers: the pg type parser reads int8 as a number
 * (src/database/int8.ts), exact below 2^53.
 *
 * `ALTER COLUMN ... TYPE bigint` rewrites the table and its indexes under an ACCESS EXCLUSIVE lock
 * (one rewrite per table: every column of a table changes in one statement). The migration runs
 * outside a transaction (`transaction = false`), so each table is locked only for its own rewrite,
 * not until the last table is done: measured with bench/bigint-migration.mjs at 1,000,000 rows per
 * table, 3 to 4 s per large table (21 s for the whole upgrade). Each statement is idempotent (a
 * column already bigint is skipped), so an interrupted run is finished by running it again. Larger
 * installations take the online path of docs/lifecycle.md ("64-bit identifiers") before upgrading;
 * this migration then finds the columns already bigint and does nothing.
 */
const COLUMNS: Record<string, string[]> = {
  contacts: ['id'],
  enrollments: ['id', 'campaign_id', 'contact_id'],
  threads: ['id', 'contact_id', 'enrollment_id', 'campaign_id'],
  messages: ['id', 'thread_id', 'enrollment_id'],
  webhook_deliveries: ['id', 'endpoint_id'],
  imports: ['id'],
  import_rows: ['import_id'],
  suppressions: ['id'],
  // The small tables too, so that every id of the API is one type with one valid range (1..2^53-1)
  // and no id a client sends can overflow a column: rewriting them costs nothing.
  campaigns: ['id', 'sequence_id'],
  sequences: ['id'],
  webhook_endpoints: ['id'],
  api_keys: ['id', 'created_by_key_id'],
  daily_metrics: ['id', 'campaign_id'],
};

export class BigintIds1799200000000 implements MigrationInterface {
  name = 'BigintIds1799200000000';
  /** One lock at a time: each ALTER TABLE commits on its own (see above). */
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await this.alter(queryRunner, 'bigint', 'integer');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await this.alter(queryRunner, 'integer', 'bigint');
  }

  private async alter(queryRunner: QueryRunner, to: string, from: string): Promise<void> {
    for (const [table, columns] of Object.entries(COLUMNS)) {
      const rows = (await queryRunner.query(
        `SELECT column_name FROM information_schema.columns
          WHERE table_schema = current_schema() AND table_name = $1 AND column_name = ANY($2) AND data_type = $3`,
        [table, columns, from],
      )) as Array<{ column_name: string }>;
      if (rows.length === 0) continue;
      const changes = rows.map((r) => `ALTER COLUMN "${r.column_name}" TYPE ${to}`).join(', ');
      await queryRunner.query(`ALTER TABLE "${table}" ${changes}`);
    }
  }
}
