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
 * - Anything that changed under this statement: a row a worker updated meanwhile is checked again
 *   in its new version (PostgreSQL re-evaluates the WHERE and SET, correlated subqueries included,
 *   on the updated row), so a step that moved on is measured from its own delay.
 */
import type { EntityManager } from 'typeorm';
import { rows } from '../../database/query-rows.js';
import { appConfig } from '../../config/app-config.js';

/**
 * The longest a claim may hold an enrollment (the engine's lease, SEND_LEASE_SECONDS); nothing within
 * it is touched. The API must not run with a shorter lease than the workers (a longer one is merely
 * more cautious), so every process of a deployment gets the same SEND_LEASE_SECONDS.
 */
export const claimLeaseSeconds = (): number => appConfig().sendLeaseSeconds;

/**
 * When the enrollment's next step is due by its delay. `$4` and `$5` are the sequence's step
 * positions and delays in position order (SQL arrays count from 1: the next step, 0-based index
 * `current_step`, is element `current_step + 1`; the previous one is element `current_step`). A
 * previous step that was not `sent` (failed for review, then resumed) has no send time: the
 * enrollment's `updated_at`, which is never earlier than the moment it moved on, stands in.
 */
const DUE_BY_DELAY = `
  CASE WHEN e.current_step = 0 THEN e.created_at
    ELSE coalesce(
      (SELECT m.sent_at FROM messages m
        WHERE m.enrollment_id = e.id AND m.direction = 'outbound'
          AND m.step_position = ($4::int[])[e.current_step] AND m.status = 'sent'),
      e.updated_at)
  END + make_interval(mins => coalesce(($5::int[])[e.current_step + 1], 0))`;

/**
 * One statement over the campaign's enrollments: the unique index on (campaign_id, contact_id) serves
 * the WHERE, each message lookup is a probe of the unique (enrollment_id, step_position) index (a
 * scalar subquery, so that the planner cannot turn it into a scan of all messages). The status test
 * is written `(…) IS TRUE` so that it does not match the predicate of the partial index
 * idx_enrollments_due: the planner would AND the campaign's index with that one, a scan of every
 * active enrollment of every workspace (115 ms of 230 ms at 666,667 active enrollments).
 */
const REEVALUATE_SQL = `
  UPDATE enrollments e SET next_step_at = greatest(clock_timestamp(), ${DUE_BY_DELAY})
  WHERE e.campaign_id = $2 AND e.workspace_id = $1 AND (e.status = 'active') IS TRUE
    AND e.next_step_at > clock_timestamp() + make_interval(secs => $3::double precision)
    AND e.next_step_at > greatest(clock_timestamp(), ${DUE_BY_DELAY})
    AND (SELECT m.status FROM messages m
         WHERE m.enrollment_id = e.id AND m.direction = 'outbound'
           AND m.step_position = ($4::int[])[e.current_step + 1]) IS DISTINCT FROM 'sending'
  RETURNING e.id`;

/** The sequence's step positions and delays, in position order. */
const STEPS_SQL = `
  SELECT coalesce(array_agg((x ->> 'position')::int ORDER BY (x ->> 'position')::int), '{}') AS positions,
         coalesce(array_agg((x ->> 'delay_minutes')::int ORDER BY (x ->> 'position')::int), '{}') AS delays
  FROM sequences s CROSS JOIN jsonb_array_elements(s.steps) x
  WHERE s.workspace_id = $1 AND s.id = $2`;

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
  const [steps] = await rows<{ positions: number[]; delays: number[] }>(m, STEPS_SQL, [
    workspaceId,
    sequenceId,
  ]);
  if (!steps?.positions.length) return 0;
  const changed = await rows<{ id: number }>(m, REEVALUATE_SQL, [
    workspaceId,
    campaignId,
    claimLeaseSeconds(),
    steps.positions,
    steps.delays,
  ]);
  return changed.length;
}
