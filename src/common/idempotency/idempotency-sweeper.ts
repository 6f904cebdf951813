/**
 * Deletes expired idempotency records in the worker role (a claim replaces an expired record anyway;
 * this keeps the table small). One pass deletes at most one batch; the loop runs again at once while
 * batches come back full, so a backlog is cleared completely instead of a batch per interval.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { rowsOf } from '../../database/query-rows.js';

const SWEEP_BATCH = 5000;

@Injectable()
export class IdempotencySweeper {
  readonly intervalMs = 10 * 60_000;

  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** One batch; true when it was full (more may be expired). */
  async sweepOnce(): Promise<boolean> {
    const deleted = rowsOf(
      await this.db.query(
        `DELETE FROM idempotency_keys WHERE ctid IN
           (SELECT ctid FROM idempotency_keys WHERE expires_at <= now() LIMIT ${SWEEP_BATCH})
         RETURNING 1`,
      ),
    );
    return deleted.length >= SWEEP_BATCH;
  }
}
