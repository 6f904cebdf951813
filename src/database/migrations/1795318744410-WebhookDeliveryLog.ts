import type { MigrationInterface, QueryRunner } from 'typeorm';

export class WebhookDeliveryLog1795318744410 implements MigrationInterface {
  name = 'WebhookDeliveryLog1795318744410';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const sql of [
      'ALTER TABLE "webhook_deliveries" ADD "last_error_class" text',
      'ALTER TABLE "webhook_deliveries" ADD "last_response_excerpt" text',
    ]) {
      await queryRunner.query(sql);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const sql of [
      'ALTER TABLE "webhook_deliveries" DROP COLUMN "last_response_excerpt"',
      'ALTER TABLE "webhook_deliveries" DROP COLUMN "last_error_class"',
    ]) {
      await queryRunner.query(sql);
    }
  }
}
