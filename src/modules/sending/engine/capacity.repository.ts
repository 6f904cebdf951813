/**
 * The daily caps of sending, as conditional writes that never pass a cap: the campaign's counter, the
 * inbox's `sent_today` and pacing slot, the sending domain's counter. Used one send at a time (with
 * pacing) or in blocks reserved for a tick (capacity-bank.ts). Every statement is of one workspace.
 */
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { rows } from '../../../database/query-rows.js';
import { EFFECTIVE_DAILY_LIMIT_SQL } from '../../inboxes/ramp-up.js';
import { UTC_TODAY } from './sql.js';

@Injectable()
export class CapacityRepository {
  /** +1 on a per-UTC-day counter if it stays within `limit`; false when the cap is reached. */
  async bumpCounter(
    workspaceId: string,
    scope: 'campaign' | 'domain',
    key: string,
    limit: number,
    m: EntityManager,
  ): Promise<boolean> {
    if (limit <= 0) return false;
    const r = await rows(
      m,
      `INSERT INTO send_counters (workspace_id, scope, key, day, sent) VALUES ($1, $2, $3, ${UTC_TODAY}, 1)
       ON CONFLICT (workspace_id, scope, key, day) DO UPDATE SET sent = send_counters.sent + 1
         WHERE send_counters.sent < $4
       RETURNING sent`,
      [workspaceId, scope, key, limit],
    );
    return r.length > 0;
  }

  /** Takes the inbox's next pacing slot (`gapSeconds` from now); null when taken, else the time it frees. */
  async takePacingSlot(
    workspaceId: string,
    inboxId: string,
    gapSeconds: number,
    m: EntityManager,
  ): Promise<Date | null> {
    const slot = await rows(
      m,
      `INSERT INTO inbox_pacing (inbox_id, workspace_id, next_send_at)
       VALUES ($1, $2, now() + make_interval(secs => $3::double precision))
       ON CONFLICT (inbox_id) DO UPDATE SET next_send_at = EXCLUDED.next_send_at
         WHERE inbox_pacing.next_send_at <= now()
       RETURNING inbox_id`,
      [inboxId, workspaceId, gapSeconds],
    );
    if (slot.length > 0) return null;
    const [p] = await rows<{ next_send_at: Date }>(
      m,
      'SELECT next_send_at FROM inbox_pacing WHERE workspace_id = $1 AND inbox_id = $2',
      [workspaceId, inboxId],
    );
    return p ? new Date(p.next_send_at) : new Date(Date.now() + 1000);
  }

  /** The inbox's daily slot and its domain's, in one statement; true when both were taken. */
  async takeInboxAndDomain(
    workspaceId: string,
    inboxId: string,
    domain: string,
    domainLimit: number,
    m: EntityManager,
  ): Promise<boolean> {
    const [taken] = await rows<{ inbox: number; domain: number }>(
      m,
      `WITH inbox AS (
         UPDATE inboxes SET
           sent_today = CASE WHEN sent_today_date = ${UTC_TODAY} THEN sent_today + 1 ELSE 1 END,
           sent_today_date = ${UTC_TODAY}, last_sent_at = now()
         WHERE workspace_id = $1 AND id = $2 AND status = 'active' AND ${EFFECTIVE_DAILY_LIMIT_SQL} > 0
           AND (sent_today_date IS DISTINCT FROM ${UTC_TODAY} OR sent_today < ${EFFECTIVE_DAILY_LIMIT_SQL})
         RETURNING id
       ), domain AS (
         INSERT INTO send_counters (workspace_id, scope, key, day, sent)
         SELECT $1, 'domain', $3, ${UTC_TODAY}, 1 FROM inbox
         ON CONFLICT (workspace_id, scope, key, day) DO UPDATE SET sent = send_counters.sent + 1
           WHERE send_counters.sent < $4
         RETURNING sent
       )
       SELECT (SELECT count(*)::int FROM inbox) AS inbox, (SELECT count(*)::int FROM domain) AS domain`,
      [workspaceId, inboxId, domain, domainLimit],
    );
    return taken.inbox === 1 && taken.domain === 1;
  }

  // Blocks (capacity-bank.ts): read under lock, then add what fits.

  /** Today's counter row, created at 0 if missing, locked for this transaction. */
  async lockCounter(
    workspaceId: string,
    scope: 'campaign' | 'domain',
    key: string,
    m: EntityManager,
    day?: string,
  ): Promise<{ sent: number; today: string }> {
    const dayExpr = day ? '$4::date' : UTC_TODAY;
    const params = day ? [workspaceId, scope, key, day] : [workspaceId, scope, key];
    await m.query(
      `INSERT INTO send_counters (workspace_id, scope, key, day, sent) VALUES ($1, $2, $3, ${dayExpr}, 0)
       ON CONFLICT (workspace_id, scope, key, day) DO NOTHING`,
      params,
    );
    const [r] = await rows<{ sent: number; today: string }>(
      m,
      `SELECT sent, day::text AS today FROM send_counters
       WHERE workspace_id = $1 AND scope = $2 AND key = $3 AND day = ${dayExpr} FOR UPDATE`,
      params,
    );
    return { sent: Number(r.sent), today: r.today };
  }

  /** Adds `by` (negative: gives back, never below 0) to a counter of day `day`. */
  async addToCounter(
    workspaceId: string,
    scope: 'campaign' | 'domain',
    key: string,
    day: string,
    by: number,
    m: EntityManager,
  ): Promise<void> {
    await m.query(
      `UPDATE send_counters SET sent = greatest(sent + $5, 0)
       WHERE workspace_id = $1 AND scope = $2 AND key = $3 AND day = $4::date`,
      [workspaceId, scope, key, day, by],
    );
  }

  /**
   * The inbox's daily count and its limit for the day (ramp-up applied), locked (same lock order as a
   * single reservation: inbox, then domain).
   */
  async lockInboxCount(
    workspaceId: string,
    inboxId: string,
    m: EntityManager,
  ): Promise<
    | { sent_today: number; counted_day: string | null; daily_limit: number; status: string; today: string }
    | undefined
  > {
    const [inbox] = await rows<{
      sent_today: number;
      counted_day: string | null;
      daily_limit: number;
      status: string;
      today: string;
    }>(
      m,
      `SELECT sent_today, sent_today_date::text AS counted_day, ${EFFECTIVE_DAILY_LIMIT_SQL} AS daily_limit,
         status, ${UTC_TODAY}::text AS today
       FROM inboxes WHERE workspace_id = $1 AND id = $2 FOR UPDATE`,
      [workspaceId, inboxId],
    );
    return inbox;
  }

  /** Sets the inbox's count of `day` (a block taken). */
  async setInboxCount(
    workspaceId: string,
    inboxId: string,
    count: number,
    day: string,
    m: EntityManager,
  ): Promise<void> {
    await m.query(
      `UPDATE inboxes SET sent_today = $3, sent_today_date = $4::date, last_sent_at = now()
       WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, inboxId, count, day],
    );
  }

  /** Gives `n` unused slots of day `day` back to the inbox's count (a count of another day is left alone). */
  async giveBackInboxCount(
    workspaceId: string,
    inboxId: string,
    day: string,
    n: number,
    m: EntityManager,
  ): Promise<void> {
    await m.query(
      `UPDATE inboxes SET sent_today = greatest(sent_today - $4, 0)
       WHERE workspace_id = $1 AND id = $2 AND sent_today_date = $3::date`,
      [workspaceId, inboxId, day, n],
    );
  }
}
