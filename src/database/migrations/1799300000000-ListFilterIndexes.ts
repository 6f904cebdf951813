import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One index per whitelisted list filter that can select a small part of a workspace, leading with
 * (workspace_id, filter) and ending in the list order (created_at, id), so a page of a filter that
 * matches 0.01 % of a 1,000,000-contact workspace reads a page of index entries instead of the
 * workspace (test/database/list-plans.e2e-spec.ts; docs/lifecycle.md, "Lists at scale"). Suppressed contacts
 * are a small set: a partial index. `updated_after` is a range on another column than the order:
 * (workspace_id, updated_at) finds the few recently updated rows, which are then sorted.
 *
 * Plain CREATE INDEX (migrations run in a transaction): writes to the table wait while an index is
 * built, about a second per index at 1,000,000 rows. A larger installation builds them beforehand
 * with CREATE INDEX CONCURRENTLY under the same names; `IF NOT EXISTS` then makes this a no-op.
 */
export const LIST_FILTER_INDEXES: Array<[name: string, definition: string]> = [
  ['idx_contacts_stage', '"contacts" ("workspace_id", "stage", "created_at", "id")'],
  [
    'idx_contacts_suppressed',
    '"contacts" ("workspace_id", "created_at", "id") WHERE suppression_reason IS NOT NULL',
  ],
  ['idx_contacts_updated', '"contacts" ("workspace_id", "updated_at")'],
  ['idx_enrollments_campaign', '"enrollments" ("workspace_id", "campaign_id", "created_at", "id")'],
  ['idx_enrollments_status', '"enrollments" ("workspace_id", "status", "created_at", "id")'],
  ['idx_threads_campaign', '"threads" ("workspace_id", "campaign_id", "created_at", "id")'],
  ['idx_threads_inbox', '"threads" ("workspace_id", "inbox_id", "created_at", "id")'],
  ['idx_suppressions_reason', '"suppressions" ("workspace_id", "reason", "created_at", "id")'],
];

export class ListFilterIndexes1799300000000 implements MigrationInterface {
  name = 'ListFilterIndexes1799300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const [name, definition] of LIST_FILTER_INDEXES) {
      await queryRunner.query(`CREATE INDEX IF NOT EXISTS "${name}" ON ${definition}`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const [name] of [...LIST_FILTER_INDEXES].reverse()) {
      await queryRunner.query(`DROP INDEX IF EXISTS "${name}"`);
    }
  }
}
