/**
 * The daily caps of sending, as conditional writes that never pass a cap: the campaign's counter, the
 * inbox's pacing slot, the sending domain's counter (the inbox's own `sent_today` belongs to the
 * inboxes module: `InboxStateRepository`). Used one send at a time (with pacing) or in blocks reserved
 * for a tick (capacity-bank.ts). Every statement is of one workspace.
 */
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { rows } from '../../../database/query-rows.js';
import { UTC_TODAY } from '../../../common/time/dates.js';
import { TAKE_DAILY_SEND_SQL } from '../../inboxes/inbox-state.repository.js';
import type { WorkspaceId } from '../../../common/tenant/workspace-id.js';

@Injectable()
export class CapacityRepository {
  /** +1 on a per-UTC-day counter if it stays within `limit`; false when the cap is reached. */
  async bumpCounter(
    workspaceId: WorkspaceId,
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
    workspaceId: WorkspaceId,
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

  /**
   * The inbox's daily slot and its domain's, in one statement; true when both were taken. The inbox's
   * part is the inboxes module's statement (`TAKE_DAILY_SEND_SQL`), composed here so that a send
   * reserves both in one round trip.
   */
  async takeInboxAndDomain(
    workspaceId: WorkspaceId,
    inboxId: string,
    domain: string,
    domainLimit: number,
    m: EntityManager,
  ): Promise<boolean> {
    const [taken] = await rows<{ inbox: number; domain: number }>(
      m,
      `WITH inbox AS (${TAKE_DAILY_SEND_SQL}
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
    workspaceId: WorkspaceId,
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
    workspaceId: WorkspaceId,
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
}
