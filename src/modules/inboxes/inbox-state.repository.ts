/**
 * The inbox's running state, written by the work that uses the inbox: the send path's daily count
 * and its failures, inbound mail's IMAP checkpoint and errors. The inboxes module owns the `inboxes`
 * table, so these statements live here; sending and inbound call them (in their own transaction
 * when they pass an `EntityManager`). Stateless apart from the DataSource the IMAP statements use.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { UTC_TODAY } from '../../common/time/dates.js';
import { rows } from '../../database/query-rows.js';
import { EFFECTIVE_DAILY_LIMIT_SQL } from './ramp-up.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

/**
 * Takes one of the inbox's daily sends (workspace `$1`, inbox `$2`) if it is active and below its
 * effective limit today, and returns its id; no row when not. Written as one statement's body so the
 * send path can take the inbox's slot and its domain's in a single statement
 * (`CapacityRepository.takeInboxAndDomain`: a CTE `inbox AS (…)`); see docs/architecture.md.
 */
export const TAKE_DAILY_SEND_SQL = `
  UPDATE inboxes SET
    sent_today = CASE WHEN sent_today_date = ${UTC_TODAY} THEN sent_today + 1 ELSE 1 END,
    sent_today_date = ${UTC_TODAY}, last_sent_at = now()
  WHERE workspace_id = $1 AND id = $2 AND status = 'active' AND ${EFFECTIVE_DAILY_LIMIT_SQL} > 0
    AND (sent_today_date IS DISTINCT FROM ${UTC_TODAY} OR sent_today < ${EFFECTIVE_DAILY_LIMIT_SQL})
  RETURNING id`;

export interface InboxDailyCount {
  sent_today: number;
  counted_day: string | null;
  daily_limit: number;
  status: string;
  today: string;
}

@Injectable()
export class InboxStateRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  // Sending: the daily count, taken in blocks for a tick (capacity-bank.ts) or one at a time.

  /**
   * The inbox's daily count and its limit for the day (ramp-up applied), locked (same lock order as a
   * single reservation: inbox, then domain).
   */
  async lockDailyCount(
    workspaceId: WorkspaceId,
    inboxId: string,
    m: EntityManager,
  ): Promise<InboxDailyCount | undefined> {
    const [inbox] = await rows<InboxDailyCount>(
      m,
      `SELECT sent_today, sent_today_date::text AS counted_day, ${EFFECTIVE_DAILY_LIMIT_SQL} AS daily_limit,
         status, ${UTC_TODAY}::text AS today
       FROM inboxes WHERE workspace_id = $1 AND id = $2 FOR UPDATE`,
      [workspaceId, inboxId],
    );
    return inbox;
  }

  /** Sets the inbox's count of `day` (a block taken). */
  async setDailyCount(
    workspaceId: WorkspaceId,
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

  /** Gives `n` unused sends of day `day` back to the inbox's count (a count of another day is left alone). */
  async giveBackDailyCount(
    workspaceId: WorkspaceId,
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

  /** Shows an SMTP failure on the inbox, and takes it out of rotation when `disable`. */
  async noteSendFailure(
    workspaceId: WorkspaceId,
    inboxId: string,
    reason: string,
    disable: boolean,
    m: EntityManager,
  ): Promise<void> {
    await m.query(
      `UPDATE inboxes SET last_error = $3, last_error_at = now(), status = CASE WHEN $4 THEN 'error' ELSE status END
       WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, inboxId, reason, disable],
    );
  }

  /**
   * Holds the inbox's sending for `seconds` (a provider's Retry-After on a 429/503): rotation skips it
   * and its follow-ups wait; a longer hold already set stays.
   */
  async holdSending(
    workspaceId: WorkspaceId,
    inboxId: string,
    seconds: number,
    m: EntityManager,
  ): Promise<void> {
    await m.query(
      `UPDATE inboxes SET send_held_until = greatest(coalesce(send_held_until, now()), now() + make_interval(secs => $3))
       WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, inboxId, seconds],
    );
  }

  // Inbound mail: problems for a person to look at, and the IMAP checkpoint.

  /**
   * Shows a problem on the inbox (`last_error`, `last_error_at`) for a person to look at; the inbox's
   * email and status (for `inbox.error`), or undefined when it is gone.
   */
  async noteError(
    workspaceId: WorkspaceId,
    inboxId: string,
    message: string,
    m?: EntityManager,
  ): Promise<{ email: string; status: string } | undefined> {
    const [found] = await rows<{ email: string; status: string }>(
      m ?? this.ds.manager,
      `UPDATE inboxes SET last_error = $3, last_error_at = now() WHERE workspace_id = $1 AND id = $2
       RETURNING email, status`,
      [workspaceId, inboxId, message],
    );
    return found;
  }

  /** As `noteError`, for the IMAP connections, which visit inboxes of every workspace. */
  async noteErrorAcrossWorkspaces(inboxId: string, message: string): Promise<void> {
    await this.ds.query('UPDATE inboxes SET last_error = $2, last_error_at = now() WHERE id = $1', [
      inboxId,
      message,
    ]);
  }

  /**
   * The IMAP connection signed in again: the problem it showed (`noteErrorAcrossWorkspaces`, always
   * `imap: …`) is cleared; anything else on the inbox (an SMTP failure, a revoked grant) stays.
   */
  async clearImapErrorAcrossWorkspaces(inboxId: string): Promise<void> {
    await this.ds.query(
      `UPDATE inboxes SET last_error = NULL, last_error_at = NULL WHERE id = $1 AND last_error LIKE 'imap: %'`,
      [inboxId],
    );
  }

  /** A new mailbox generation (UIDVALIDITY changed): UIDs restart, so does the checkpoint. */
  async resetCheckpointAcrossWorkspaces(inboxId: string, validity: string): Promise<void> {
    await this.ds.query('UPDATE inboxes SET imap_uid_validity = $2, imap_last_uid = 0 WHERE id = $1', [
      inboxId,
      validity,
    ]);
  }

  /**
   * Moves an API inbox's checkpoint (Gmail historyId, Graph delta link) from `from` to `to`; false
   * when it was no longer `from` (another worker moved it, the inbox was reconnected or switched).
   */
  async moveApiCheckpointAcrossWorkspaces(
    inboxId: string,
    from: string | null,
    to: string,
  ): Promise<boolean> {
    const moved = await rows<{ id: string }>(
      this.ds.manager,
      `UPDATE inboxes SET api_checkpoint = $3
       WHERE id = $1 AND transport = 'api' AND api_checkpoint IS NOT DISTINCT FROM $2 RETURNING id`,
      [inboxId, from, to],
    );
    return moved.length > 0;
  }

  /** Moves the checkpoint past `uid` (never back, never across a UIDVALIDITY change); counts a skip. */
  async advanceCheckpointAcrossWorkspaces(
    inboxId: string,
    validity: string,
    uid: number,
    skipped: boolean,
  ): Promise<void> {
    await this.ds.query(
      `UPDATE inboxes SET imap_last_uid = $3, imap_skipped_oversize = imap_skipped_oversize + $4
       WHERE id = $1 AND imap_uid_validity = $2 AND COALESCE(imap_last_uid, 0) < $3`,
      [inboxId, validity, uid, skipped ? 1 : 0],
    );
  }
}
