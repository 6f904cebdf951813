/**
 * Purges message bodies older than each workspace's `message_body_retention_days` (CONTRACT §5):
 * the body becomes null and `body_purged_at` is set; every other field stays. Runs in batches so a
 * large backlog never holds long locks.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { DEFAULT_WORKSPACE_CONFIG } from '../workspaces/workspace-config.js';
import { rows } from '../../database/query-rows.js';

const BATCH = 5000;

@Injectable()
export class MessageRetentionService {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Returns how many bodies were purged. */
  async purgeExpiredBodies(): Promise<number> {
    let total = 0;
    for (;;) {
      const purged = await rows<{ id: number }>(
        this.ds.manager,
        `UPDATE messages m SET body = NULL, body_purged_at = now()
         WHERE m.id IN (
           SELECT x.id FROM messages x JOIN workspaces w ON w.id = x.workspace_id
           WHERE x.body IS NOT NULL
             AND x.created_at < now() - make_interval(days =>
               COALESCE((w.config->>'message_body_retention_days')::int, $1))
           LIMIT $2)
         RETURNING m.id`,
        [DEFAULT_WORKSPACE_CONFIG.message_body_retention_days, BATCH],
      );
      total += purged.length;
      if (purged.length < BATCH) return total;
    }
  }
}
