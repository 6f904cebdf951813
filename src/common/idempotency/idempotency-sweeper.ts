/**
 * Deletes expired idempotency records in the worker role (a claim replaces an expired record anyway;
 * this keeps the table small). One pass deletes at most one batch; the loop runs again at once while
 * batches come back full, so a backlog is cleared completely instead of a batch per interval.
 */
import { Injectable } from '@nestjs/common';
import { IdempotencyRepository } from './idempotency.repository.js';

const SWEEP_BATCH = 5000;

@Injectable()
export class IdempotencySweeper {
  readonly intervalMs = 10 * 60_000;

  constructor(private readonly records: IdempotencyRepository) {}

  /** One batch; true when it was full (more may be expired). */
  async sweepOnce(): Promise<boolean> {
    return (await this.records.deleteExpiredAcrossWorkspaces(SWEEP_BATCH)) >= SWEEP_BATCH;
  }
}
