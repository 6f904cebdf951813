import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { rows } from '../../database/query-rows.js';

/** What the scrape-time gauges read from PostgreSQL. */
export interface OperationalGauges {
  /** Seconds since the oldest step still due became due (0 when none is). */
  dueLagSeconds: number;
  /** Undispatched events, counted up to OUTBOX_COUNT_CAP. */
  outboxBacklog: number;
  /** Seconds since the oldest undispatched event was written (0 when none waits). */
  outboxOldestSeconds: number;
}

/** A backlog past this is reported as this: the scrape stays cheap however large it grows. */
export const OUTBOX_COUNT_CAP = 100_000;

/** A scrape never holds a connection longer than this. */
const GAUGES_TIMEOUT_MS = 2000;

/**
 * Each part walks a partial index from its start: the oldest due enrollment is the claim's own
 * query (idx_enrollments_due, the same filter as DUE_ENROLLMENTS_SQL, so a step the engine would not
 * claim does not count as late), the outbox reads idx_events_undispatched (capped count, min).
 */
const GAUGES_SQL = `
  SELECT
    coalesce(extract(epoch FROM now() - (
      SELECT e.next_step_at FROM enrollments e
      WHERE e.status = 'active' AND e.next_step_at <= now()
        AND EXISTS (SELECT 1 FROM campaigns c WHERE c.id = e.campaign_id AND c.status = 'active')
      ORDER BY e.next_step_at, e.id LIMIT 1)), 0)::float8 AS due_lag,
    (SELECT count(*) FROM (SELECT 1 FROM events WHERE dispatched_at IS NULL LIMIT $1) x)::int AS backlog,
    coalesce(extract(epoch FROM now() - (SELECT min(created_at) FROM events WHERE dispatched_at IS NULL)), 0)::float8
      AS outbox_oldest`;

/** The operational gauges (they span workspaces by nature: one number for the whole service). */
@Injectable()
export class MetricsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async gaugesAcrossWorkspaces(): Promise<OperationalGauges> {
    return this.db.transaction(async (m) => {
      await m.query(`SET LOCAL statement_timeout = ${GAUGES_TIMEOUT_MS}`);
      const [r] = await rows<{ due_lag: number; backlog: number; outbox_oldest: number }>(m, GAUGES_SQL, [
        OUTBOX_COUNT_CAP,
      ]);
      return {
        dueLagSeconds: Math.max(0, Number(r.due_lag)),
        outboxBacklog: Number(r.backlog),
        outboxOldestSeconds: Math.max(0, Number(r.outbox_oldest)),
      };
    });
  }
}
