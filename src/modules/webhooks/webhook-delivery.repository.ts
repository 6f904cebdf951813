/**
 * Webhook deliveries as the worker role moves them: the outbox fan-out (events → deliveries), claims
 * of due deliveries under a lease, and the recording of attempts. Every statement spans workspaces
 * (workers serve all tenants) and every row carries its workspace id. Hand-written SQL: this is the
 * delivery hot path (one statement per pass, arrays unnested for batches).
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { pgPool, type PgClient } from '../../database/pg-pool.js';
import { rowsOf } from '../../database/query-rows.js';
import { claimUndispatchedSql, MARK_DISPATCHED_SQL } from '../events/events.repository.js';

export interface ClaimedRow {
  id: number;
  attempts: number;
  event_id: string;
  event: string;
  workspace_id: string;
  endpoint_id: number;
  url: string;
  secret_sealed: string;
  /** The event's data as JSON text (jsonb::text), spliced into the envelope as is. */
  data: string;
  /** ISO 8601 UTC with milliseconds, formatted by Postgres. */
  occurred_at: string;
}

/** `occurred_at` as the envelope shows it, formatted in SQL (no Date round trip). */
export const OCCURRED_AT_ISO = `to_char(ev.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** What a delivery whose event is gone records (last_error_class `event_expired`). */
export const EVENT_EXPIRED_ERROR =
  'event_expired: the event was removed by retention (EVENT_RETENTION_DAYS) before it could be delivered';

/**
 * Due deliveries whose event is gone (retention removed it) are finished in the same statement,
 * `failed` with `event_expired`, so they never stay pending at the head of the claim.
 */
const CLAIM_SQL = `
WITH due AS (
  SELECT d.id FROM webhook_deliveries d
  JOIN webhook_endpoints e ON e.id = d.endpoint_id
  WHERE d.status = 'pending' AND d.next_attempt_at <= now() AND e.status = 'enabled'
  ORDER BY d.next_attempt_at
  LIMIT $1
  FOR UPDATE OF d SKIP LOCKED
), expired AS (
  UPDATE webhook_deliveries d
  SET status = 'failed', next_attempt_at = NULL, last_error = $3, last_error_class = 'event_expired',
      last_status_code = NULL, last_duration_ms = NULL, last_response_excerpt = NULL
  FROM due
  WHERE d.id = due.id AND NOT EXISTS (SELECT 1 FROM events ev WHERE ev.id = d.event_id)
  RETURNING d.id
)
UPDATE webhook_deliveries d
SET next_attempt_at = now() + make_interval(secs => $2::float8)
FROM due, webhook_endpoints e, events ev
WHERE d.id = due.id AND e.id = d.endpoint_id AND ev.id = d.event_id
RETURNING d.id, d.attempts, d.event_id, d.event, d.workspace_id, d.endpoint_id, e.url, e.secret_sealed,
  ev.data::text AS data, ${OCCURRED_AT_ISO} AS occurred_at`;

const SUCCESS_SQL = `
WITH v AS (
  SELECT * FROM unnest($1::bigint[], $2::int[], $3::int[], $4::timestamptz[], $5::text[])
    AS v(id, code, ms, at, excerpt)
), upd AS (
  UPDATE webhook_deliveries d
  SET status = 'succeeded', attempts = d.attempts + 1, last_attempt_at = v.at, next_attempt_at = NULL,
      last_status_code = v.code, last_error = NULL, last_error_class = NULL, last_duration_ms = v.ms,
      last_response_excerpt = v.excerpt
  FROM v WHERE d.id = v.id AND d.status = 'pending'
  RETURNING d.endpoint_id
)
UPDATE webhook_endpoints e SET consecutive_failures = 0
WHERE e.id IN (SELECT endpoint_id FROM upd) AND e.consecutive_failures <> 0`;

const FAILURE_SQL = `
WITH ep AS (
  UPDATE webhook_endpoints
  SET consecutive_failures = consecutive_failures + 1,
      status = CASE WHEN consecutive_failures + 1 >= $9 THEN 'disabled' ELSE status END,
      disabled_reason = CASE WHEN consecutive_failures + 1 >= $9 AND status = 'enabled'
        THEN $10 ELSE disabled_reason END,
      updated_at = now()
  WHERE id = $2
  RETURNING id
)
UPDATE webhook_deliveries d
SET attempts = d.attempts + 1,
    status = CASE WHEN d.attempts + 1 >= $3 THEN 'failed' ELSE 'pending' END,
    next_attempt_at = CASE WHEN d.attempts + 1 >= $3 THEN NULL ELSE now() + make_interval(secs => $4::float8) END,
    last_attempt_at = $5, last_status_code = $6, last_error = $7, last_error_class = $8,
    last_duration_ms = $11, last_response_excerpt = $12
WHERE d.id = $1 AND d.status = 'pending'`;

/**
 * The fan-out both passes share: claim up to $1 undispatched events (`evColumns` of them), create one
 * delivery per subscribed endpoint of their workspace, first attempt at `nextAttempt`, and mark the
 * events dispatched, in one statement (the events' parts are the events module's).
 */
const fanOut = (evColumns: string, nextAttempt: string, returning: string): string => `
WITH ev AS (${claimUndispatchedSql(evColumns)}
), ins AS (
  INSERT INTO webhook_deliveries (workspace_id, endpoint_id, event_id, event, status, next_attempt_at)
  SELECT ev.workspace_id, e.id, ev.id, ev.type, 'pending', ${nextAttempt}
  FROM ev JOIN webhook_endpoints e
    ON e.workspace_id = ev.workspace_id AND split_part(ev.type, '.', 1) = ANY (e.events)
  ON CONFLICT (endpoint_id, event_id) DO NOTHING
  RETURNING ${returning}
), upd AS (
  ${MARK_DISPATCHED_SQL}
)`;

const DISPATCH_SQL = `${fanOut('id, workspace_id, type', 'now() + make_interval(secs => $2::float8)', '1')}
SELECT (SELECT count(*) FROM upd)::int AS events, (SELECT count(*) FROM ins)::int AS deliveries`;

/**
 * The same, when the first attempt is due at once: deliveries to enabled endpoints are created
 * already leased to this process ($3 seconds) and returned with what an attempt needs, so the local
 * delivery loop starts them without a claim round trip. If this process dies, the lease expires and
 * any process claims them.
 */
const DISPATCH_AND_LEASE_SQL = `${fanOut(
  'id, workspace_id, type, data, occurred_at',
  `now() + make_interval(secs => CASE WHEN e.status = 'enabled' THEN $3::float8 ELSE $2::float8 END)`,
  'id, attempts, event_id, event, workspace_id, endpoint_id',
)}
SELECT c.events, x.* FROM (SELECT count(*)::int AS events FROM upd) c
LEFT JOIN (
  SELECT ins.id, ins.attempts, ins.event_id, ins.event, ins.workspace_id, ins.endpoint_id, e.url,
    e.secret_sealed, e.status AS endpoint_status, ev.data::text AS data, ${OCCURRED_AT_ISO} AS occurred_at
  FROM ins JOIN ev ON ev.id = ins.event_id JOIN webhook_endpoints e ON e.id = ins.endpoint_id
) x ON true`;

export interface AttemptSuccess {
  id: number;
  statusCode: number | null;
  durationMs: number | null;
  at: Date;
  excerpt: string | null;
}

export interface AttemptFailure extends AttemptSuccess {
  endpointId: number;
  maxAttempts: number;
  delaySeconds: number;
  error: string | null;
  errorClass: string | null;
  disableAfter: number;
  disabledReason: string;
}

export type LeasedRow = ClaimedRow & { events: number; id: number | null; endpoint_status: string };

@Injectable()
export class WebhookDeliveryRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Claims up to `limit` due deliveries of enabled endpoints, leased for `leaseSeconds`; due ones
   * whose event is gone are finished (`event_expired`) instead.
   */
  async claimDueAcrossWorkspaces(limit: number, leaseSeconds: number): Promise<ClaimedRow[]> {
    const raw = (await this.db.query(CLAIM_SQL, [limit, leaseSeconds, EVENT_EXPIRED_ERROR])) as [
      ClaimedRow[],
      number,
    ];
    return raw[0];
  }

  /**
   * Gives back leases this process took but will not attempt (it is shutting down): due at once for
   * any other process. Only called within the first half of the lease, so no other process can
   * have claimed them meanwhile.
   */
  async releaseLeasesAcrossWorkspaces(ids: number[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.query(
      `UPDATE webhook_deliveries SET next_attempt_at = now()
       WHERE id = ANY($1::bigint[]) AND status = 'pending' AND next_attempt_at > now()`,
      [ids],
    );
  }

  async recordSuccessesAcrossWorkspaces(successes: AttemptSuccess[]): Promise<void> {
    await this.db.query(SUCCESS_SQL, [
      successes.map((s) => s.id),
      successes.map((s) => s.statusCode),
      successes.map((s) => s.durationMs),
      successes.map((s) => s.at.toISOString()),
      successes.map((s) => s.excerpt),
    ]);
  }

  /** One failed attempt: the delivery rescheduled (or failed), the endpoint's failure count (or disabled). */
  async recordFailureAcrossWorkspaces(f: AttemptFailure): Promise<void> {
    await this.db.query(FAILURE_SQL, [
      f.id,
      f.endpointId,
      f.maxAttempts,
      f.delaySeconds,
      f.at.toISOString(),
      f.statusCode,
      f.error,
      f.errorClass,
      f.disableAfter,
      f.disabledReason,
      f.durationMs,
      f.excerpt,
    ]);
  }

  /** Fans out up to `batch` undispatched events; the first attempts due after `firstDelaySeconds`. */
  async dispatchAcrossWorkspaces(
    batch: number,
    firstDelaySeconds: number,
  ): Promise<{ events: number; deliveries: number }> {
    const rows = (await this.db.query(DISPATCH_SQL, [batch, firstDelaySeconds])) as Array<{
      events: number;
      deliveries: number;
    }>;
    return rows[0] ?? { events: 0, deliveries: 0 };
  }

  /** The same, first attempts due now: deliveries of enabled endpoints come back leased to this process. */
  async dispatchAndLeaseAcrossWorkspaces(
    limit: number,
    firstDelaySeconds: number,
    leaseSeconds: number,
  ): Promise<LeasedRow[]> {
    return (await this.db.query(DISPATCH_AND_LEASE_SQL, [
      limit,
      firstDelaySeconds,
      leaseSeconds,
    ])) as LeasedRow[];
  }

  /** A dedicated pool connection LISTENing on `channel` (handlers attached first); the caller releases it. */
  async listenAcrossWorkspaces(
    channel: string,
    on: { notification: () => void; error: (client: PgClient) => void },
  ): Promise<PgClient> {
    const client = await pgPool(this.db).connect();
    client.on('notification', on.notification);
    client.on('error', () => on.error(client));
    try {
      await client.query(`LISTEN ${channel}`);
    } catch (err) {
      client.release(true);
      throw err;
    }
    return client;
  }

  /** Deletes up to `batch` finished (succeeded or failed) deliveries older than `days`; how many. */
  async deleteFinishedAcrossWorkspaces(days: number, batch: number): Promise<number> {
    const deleted = rowsOf(
      await this.db.query(
        `DELETE FROM webhook_deliveries WHERE id IN (
         SELECT id FROM webhook_deliveries
         WHERE status <> 'pending' AND created_at < now() - make_interval(days => $1)
         LIMIT $2)
       RETURNING 1`,
        [days, batch],
      ),
    );
    return deleted.length;
  }
}
