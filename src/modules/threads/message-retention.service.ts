/**
 * Purges message bodies older than each workspace's `message_body_retention_days`: the body becomes
 * null and `body_purged_at` is set; every other field stays. Runs in batches so a large backlog never
 * holds long locks.
 */
import { Injectable } from '@nestjs/common';
import { DEFAULT_WORKSPACE_CONFIG } from '../workspaces/workspace-config.js';
import { MessagesRepository } from './threads.repository.js';

const BATCH = 5000;

@Injectable()
export class MessageRetentionService {
  constructor(private readonly messages: MessagesRepository) {}

  /** Returns how many bodies were purged. */
  async purgeExpiredBodies(): Promise<number> {
    let total = 0;
    for (;;) {
      const purged = await this.messages.purgeExpiredBodiesAcrossWorkspaces(
        DEFAULT_WORKSPACE_CONFIG.message_body_retention_days,
        BATCH,
      );
      total += purged;
      if (purged < BATCH) return total;
    }
  }
}
