/** An enrollment as the API shows it (and as `enrollment.completed` carries it). */
import type { EnrollmentStatus } from './enrollment-state.js';
import { Enrollment } from './entities/enrollment.entity.js';

export interface EnrollmentView {
  id: number;
  campaign_id: number;
  contact_id: number;
  status: EnrollmentStatus;
  current_step: number;
  next_step_at: string | null;
  inbox_id: string | null;
  stop_reason: Enrollment['stopReason'];
  stop_note: string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
  stopped_at: string | null;
  /** The subsequence this enrollment runs (null: the campaign's own sequence). */
  subsequence_id: number | null;
  /** The enrollment whose trigger started this one. */
  parent_enrollment_id: number | null;
  /** An out-of-office hold: the next step is not sent before this. */
  held_until: string | null;
  held_reason: string | null;
}

const iso = (d: Date | null): string | null => d?.toISOString() ?? null;

export const toEnrollmentView = (e: Enrollment): EnrollmentView => ({
  id: e.id,
  campaign_id: e.campaignId,
  contact_id: e.contactId,
  status: e.status,
  current_step: e.currentStep,
  next_step_at: iso(e.nextStepAt),
  inbox_id: e.inboxId,
  stop_reason: e.stopReason,
  stop_note: e.stopNote,
  created_at: e.createdAt.toISOString(),
  updated_at: e.updatedAt.toISOString(),
  completed_at: iso(e.completedAt),
  stopped_at: iso(e.stoppedAt),
  subsequence_id: e.subsequenceId == null ? null : Number(e.subsequenceId),
  parent_enrollment_id: e.parentEnrollmentId == null ? null : Number(e.parentEnrollmentId),
  held_until: iso(e.heldUntil ?? null),
  held_reason: e.heldReason ?? null,
});
