/**
 * Schedules take effect at once (CONTRACT §12). When the engine claims an enrollment outside the
 * campaign's window it moves `next_step_at` to the window's next opening (send-engine `defer`). When
 * the schedule changes, or the campaign is re-activated, those deferrals are re-evaluated: each
 * enrollment is made due again when its step is due by its delay (previous step's send, or the
 * enrollment for step 1, plus the step's `delay_minutes`), but not before now, and the engine checks
 * the new window at its next tick. A step is never made due earlier than its delay allows.
 *
 * What is left alone:
 * - An enrollment a worker may hold. A claim leases an enrollment by moving `next_step_at` to
 *   claim time + CLAIM_LEASE_SECONDS and keeps it there from the claim until the step is recorded and
 *   finalised (or deferred); making it due would let a second worker claim it while the first is
 *   still on its way to SMTP. Every leased enrollment therefore has `next_step_at <= now + lease`
 *   (now read per row with clock_timestamp(), never the transaction's start: a claim committed after
 *   this transaction began must still count as leased), so only enrollments deferred beyond that are
 *   re-evaluated. A deferral that ends within the lease anyway is kept (it is at most that late).
 * - An enrollment with a `sending` message for its next step: recorded and not finalised, in flight or
 *   the trace of a crash that the engine resolves itself.
 * - Anything whose step moved on while this ran (`current_step` is checked again on the row it
 *   updates).
 */
import type { EntityManager } from 'typeorm';
import { rows } from '../../database/query-rows.js';
import { CLAIM_LEASE_SECONDS } from '../sending/send-engine.service.js';

/** The longest a claim may hold an enrollment (the engine's lease); nothing within it is touched. */
export const claimLeaseSeconds = (): number => CLAIM_LEASE_SECONDS;

/**
 * One statement over the campaign's enrollments (the unique index on (campaign_id, contact_id)
 * serves the WHERE). The step's delay is read from the campaign's sequence (`steps` is stored in
 * position order, positions 1..n, so step index `current_step` has position `current_step + 1` and the
 * previous step position `current_step`). A previous step that was not `sent` (failed for review, then
 * resumed) has no send time: the enrollment's `updated_at`, which is never earlier than the moment it
 * moved on, stands in.
 */
const REEVALUATE_SQL = `
  UPDATE enrollments e SET next_step_at = x.due
  FROM (
    SELECT d.id, d.current_step,
      greatest(
        clock_timestamp(),
        CASE WHEN d.current_step = 0 THEN d.created_at
          ELSE coalesce(
            (SELECT m.sent_at FROM messages m
              WHERE m.enrollment_id = d.id AND m.direction = 'outbound' AND m.step_position = d.current_step
                AND m.status = 'sent'),
            d.updated_at)
        END + make_interval(mins => coalesce((s.steps -> d.current_step ->> 'delay_minutes')::int, 0))
      ) AS due
    FROM enrollments d
    CROSS JOIN (SELECT steps FROM sequences WHERE workspace_id = $1 AND id = $3) s
    WHERE d.campaign_id = $2 AND d.workspace_id = $1 AND d.status = 'active'
      AND d.next_step_at > clock_timestamp() + make_interval(secs => $4::double precision)
  ) x
  WHERE e.id = x.id AND e.current_step = x.current_step AND e.status = 'active'
    AND e.next_step_at > x.due
    AND e.next_step_at > clock_timestamp() + make_interval(secs => $4::double precision)
    AND NOT EXISTS (
      SELECT 1 FROM messages m
      WHERE m.enrollment_id = e.id AND m.direction = 'outbound' AND m.step_position = e.current_step + 1
        AND m.status = 'sending')
  RETURNING e.id`;

/**
 * Re-evaluates the deferred enrollments of one campaign; run in the transaction that changes the
 * campaign (its row locked). Returns how many enrollments were made due earlier.
 */
export async function reevaluateDeferred(
  m: EntityManager,
  workspaceId: string,
  campaignId: number,
  sequenceId: number | null,
): Promise<number> {
  if (sequenceId === null) return 0;
  const changed = await rows<{ id: number }>(m, REEVALUATE_SQL, [
    workspaceId,
    campaignId,
    sequenceId,
    claimLeaseSeconds(),
  ]);
  return changed.length;
}
