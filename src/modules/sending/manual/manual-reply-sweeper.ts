/**
 * Resolves manual replies a dead process left `sending`. A reply is recorded `sending` before its
 * SMTP conversation and resolved by its own request; when the process dies in between (a crash, a
 * kill after the shutdown budget), nothing else would ever resolve it, and the thread would show it
 * `sending` for good. A retry with the same Idempotency-Key resolves it at once (failed, outcome
 * unknown); this sweep (worker role, every minute) does the same for the ones nobody retries, once
 * their conversation began more than STALE_SECONDS ago, far beyond any SMTP timeout. Never resent.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { logger } from '../../../common/logging/logger.js';
import { MessageWritesRepository } from '../../threads/message-writes.repository.js';

export const STALE_SECONDS = 15 * 60;
export const SWEEP_BATCH = 500;
export const STALE_NOTE =
  'outcome unknown: the process sending this reply stopped before its outcome was known; it will not be resent. ' +
  'Check with the recipient before writing again.';

@Injectable()
export class ManualReplySweeper {
  readonly intervalMs = 60_000;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly messages: MessageWritesRepository,
  ) {}

  /** One batch; true when it came back full (more may be waiting). */
  async sweepOnce(batch = SWEEP_BATCH): Promise<boolean> {
    const ids = await this.ds.transaction((m) =>
      this.messages.failStaleManualAcrossWorkspaces(STALE_SECONDS, batch, STALE_NOTE, m),
    );
    if (ids.length) {
      logger.warn(
        { count: ids.length, messageIds: ids.slice(0, 20) },
        'manual replies left sending by a stopped process marked failed (outcome unknown)',
      );
    }
    return ids.length >= batch;
  }
}
