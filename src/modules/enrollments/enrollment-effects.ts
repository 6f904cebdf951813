/**
 * The engine's effects on enrollments, contacts and the suppression list, shared by the send path,
 * mail ingestion and unsubscribes. Every function runs inside the caller's transaction (manager) so
 * each effect commits together with its event and its metric.
 */
import type { EntityManager } from 'typeorm';
import { bumpMetric } from '../analytics/metrics.js';
import type { StopReason } from './enrollment-state.js';
import { recordEvent } from '../events/outbox.js';
import { suppressAddress } from '../suppressions/suppression-store.js';
import type { BounceType } from '../inbound/classify.js';
import { EnrollmentTransitionsRepository } from './enrollments.repository.js';

const transitions = new EnrollmentTransitionsRepository();

/** active|paused → stopped with a reason; a no-op for an enrollment already finished. */
export async function stopEnrollment(
  manager: EntityManager,
  workspaceId: string,
  enrollmentId: number,
  reason: StopReason,
  note: string | null = null,
): Promise<boolean> {
  return transitions.stop(workspaceId, enrollmentId, reason, note, manager);
}

export interface HardBounce {
  workspaceId: string;
  contactId: number;
  email: string;
  enrollmentId: number | null;
  campaignId: number | null;
  statusCode: string;
  diagnostic: string | null;
}

/**
 * A hard bounce (DSN 5.x.x or an SMTP 5xx on the recipient): the address is suppressed `bounced`,
 * the enrollment stopped `bounced`, `email.bounced` fires and the campaign's `bounced` counts.
 */
export async function recordHardBounce(manager: EntityManager, b: HardBounce): Promise<void> {
  await suppressAddress(manager, b.workspaceId, b.email, 'bounced');
  if (b.enrollmentId !== null) await stopEnrollment(manager, b.workspaceId, b.enrollmentId, 'bounced');
  if (b.campaignId !== null) await bumpMetric(manager, b.workspaceId, b.campaignId, 'bounced');
  await recordEvent(manager, {
    workspaceId: b.workspaceId,
    type: 'email.bounced',
    data: {
      contact_id: b.contactId,
      email: b.email,
      bounce_type: 'hard' satisfies BounceType,
      status_code: b.statusCode,
      diagnostic: b.diagnostic,
      enrollment_id: b.enrollmentId,
      campaign_id: b.campaignId,
    },
  });
}

/** The enrollment stop reason for a contact that became unsendable through a suppression entry. */
export function stopReasonForSuppression(reason: string | null): StopReason {
  return reason === 'unsubscribed' || reason === 'bounced' || reason === 'complained' ? reason : 'manual';
}
