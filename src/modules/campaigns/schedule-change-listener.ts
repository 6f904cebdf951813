/**
 * What happens to other modules' rows when a campaign's schedule changes or it is re-activated: the
 * campaigns module calls this port in the transaction that changes the campaign; the enrollments module
 * provides it (DeferredEnrollmentsReevaluator, enrollments/reevaluate-deferred.ts). Campaigns thereby
 * never import enrollments (enrollments import campaigns).
 */
import type { EntityManager } from 'typeorm';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

export interface ScheduleChangeListener {
  /** Re-evaluates what the old schedule deferred; how many rows moved. */
  scheduleChanged(
    m: EntityManager,
    workspaceId: WorkspaceId,
    campaignId: number,
    sequenceId: number | null,
  ): Promise<number>;
}

export const SCHEDULE_CHANGE_LISTENER = Symbol('SCHEDULE_CHANGE_LISTENER');
