/**
 * Schedules take effect at once. When the engine claims an enrollment outside the
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
import { Global, Injectable, Module } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { appConfig } from '../../config/app-config.js';
import {
  SCHEDULE_CHANGE_LISTENER,
  type ScheduleChangeListener,
} from '../campaigns/schedule-change-listener.js';
import { EnrollmentTransitionsRepository } from './enrollments.repository.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

/**
 * The longest a claim may hold an enrollment (the engine's lease, SEND_LEASE_SECONDS); nothing within
 * it is touched. The API must not run with a shorter lease than the workers (a longer one is merely
 * more cautious), so every process of a deployment gets the same SEND_LEASE_SECONDS.
 */
export const claimLeaseSeconds = (): number => appConfig().sendLeaseSeconds;

/** What the campaigns module calls when a campaign's schedule changes or it is re-activated. */
@Injectable()
export class DeferredEnrollmentsReevaluator implements ScheduleChangeListener {
  constructor(private readonly transitions: EnrollmentTransitionsRepository) {}

  /**
   * Re-evaluates the deferred enrollments of one campaign; run in the transaction that changes the
   * campaign (its row locked). Returns how many enrollments were made due earlier.
   */
  scheduleChanged(
    m: EntityManager,
    workspaceId: WorkspaceId,
    campaignId: number,
    sequenceId: number | null,
  ): Promise<number> {
    if (sequenceId === null) return Promise.resolve(0);
    return this.transitions.reevaluateDeferred(workspaceId, campaignId, sequenceId, claimLeaseSeconds(), m);
  }
}

/**
 * Provides the campaigns module's SCHEDULE_CHANGE_LISTENER everywhere (global), so that campaigns
 * need not import enrollments (enrollments import campaigns): each composition root that has the
 * campaigns module imports this one.
 */
@Global()
@Module({
  providers: [
    EnrollmentTransitionsRepository,
    { provide: SCHEDULE_CHANGE_LISTENER, useClass: DeferredEnrollmentsReevaluator },
  ],
  exports: [SCHEDULE_CHANGE_LISTENER],
})
export class EnrollmentScheduleModule {}
