import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Fair reply categorisation (CONTRACT §26): two steps instead of one FIFO.
 * - `messages.category_awaiting_ai`: the built-in rules have seen the reply and left it to the
 *   workspace's AI provider (their opt-out verdict is applied at once, never left waiting);
 * - `idx_messages_uncategorised` now holds only the replies the rules have not seen yet;
 * - `idx_messages_awaiting_ai` (`workspace_id`, `id`) holds the replies waiting for a provider, which
 *   are claimed round-robin across workspaces.
 * A boolean with a constant default: no table rewrite.
 */
export class FairReplyCategories1800100000000 implements MigrationInterface {
  name = 'FairReplyCategories1800100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "messages" ADD COLUMN IF NOT EXISTS "category_awaiting_ai" boolean NOT NULL DEFAULT false`,
    );
    await queryRunner.query('DROP INDEX IF EXISTS "idx_messages_uncategorised"');
    await queryRunner.query(
      `CREATE INDEX IF NOT EXISTS "idx_messages_uncategorised" ON "messages" ("id") WHERE kind = 'reply' AND category IS NULL AND NOT category_awaiting_ai`,
    );
    await queryRunner.query(
      `CREATE INDEX IF NOT EXISTS "idx_messages_awaiting_ai" ON "messages" ("workspace_id", "id") WHERE kind = 'reply' AND category IS NULL AND category_awaiting_ai`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX IF EXISTS "idx_messages_awaiting_ai"');
    await queryRunner.query('DROP INDEX IF EXISTS "idx_messages_uncategorised"');
    await queryRunner.query(
      `CREATE INDEX IF NOT EXISTS "idx_messages_uncategorised" ON "messages" ("id") WHERE kind = 'reply' AND category IS NULL`,
    );
    await queryRunner.query(`ALTER TABLE "messages" DROP COLUMN IF EXISTS "category_awaiting_ai"`);
  }
}
