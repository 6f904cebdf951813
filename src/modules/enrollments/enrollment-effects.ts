/**
 * The engine's effects on enrollments, contacts and the suppression list, shared by the send path,
 * mail ingestion and unsubscribes. Every function runs inside the caller's transaction (manager) so
 * each effect commits together with its event and its metric.
 */
import type { EntityManager } from 'typeorm';
import { bumpMetric, bumpStepMetric } from '../analytics/metrics.js';
import { pauseOnBounceRate } from '../campaigns/bounce-protection.js';
import { MessageMarksRepository } from '../threads/threads.repository.js';
import type { StopReason } from './enrollment-state.js';
import { recordEvent } from '../events/outbox.js';
import { addSuppression, suppressAddress } from '../suppressions/suppression-store.js';
import type { BounceType } from '../inbound/classify.js';
import { EnrollmentTransitionsRepository } from './enrollments.repository.js';

const transitions = new EnrollmentTransitionsRepository();
const messageMarks = new MessageMarksRepository();

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

/**
 * Stop on reply for the whole company: every active or paused enrollment of the campaign whose
 * contact's address is at `domain` stops `replied`, with a note naming the reply's sender. Callers
 * leave out free-mail domains. Returns how many stopped.
 */
export async function stopCompanyOnReply(
  manager: EntityManager,
  workspaceId: string,
  campaignId: number,
  domain: string,
  replier: string,
): Promise<number> {
  const stopped = await transitions.stopAllOfCampaignDomain(
    workspaceId,
    campaignId,
    domain,
    'replied',
    `reply from ${replier} (same company domain ${domain})`,
    manager,
  );
  return stopped.length;
}

export interface HardBounce {
  workspaceId: string;
  contactId: number;
  email: string;
  enrollmentId: number | null;
  campaignId: number | null;
  /** The outbound message that bounced (the SMTP send, or the original a DSN reports on). */
  messageRowId: number | null;
  statusCode: string;
  diagnostic: string | null;
}

/**
 * A hard bounce (DSN 5.x.x or an SMTP 5xx on the recipient): the address is suppressed `bounced`,
 * the enrollment stopped `bounced`, the message marked bounced, `email.bounced` fires, the campaign's
 * `bounced` counts (daily and for the message's step and variant), and bounce protection may pause
 * the campaign.
 */
export async function recordHardBounce(manager: EntityManager, b: HardBounce): Promise<void> {
  await suppressAddress(manager, b.workspaceId, b.email, 'bounced');
  if (b.enrollmentId !== null) await stopEnrollment(manager, b.workspaceId, b.enrollmentId, 'bounced');
  if (b.messageRowId !== null) await messageMarks.markBounced(b.workspaceId, b.messageRowId, manager);
  if (b.campaignId !== null) {
    const at = new Date();
    await bumpMetric(manager, b.workspaceId, b.campaignId, 'bounced', 1, at);
    // Per step and variant: the message that bounced (else the enrollment's last one sent).
    const to =
      b.messageRowId !== null ? { messageId: b.messageRowId } : { enrollmentId: b.enrollmentId ?? 0 };
    await bumpStepMetric(manager, b.workspaceId, b.campaignId, 'bounced', to, at);
  }
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
  if (b.campaignId !== null) await pauseOnBounceRate(manager, b.workspaceId, b.campaignId);
}

export interface Complaint {
  workspaceId: string;
  contactId: number;
  email: string;
  feedbackType: string;
  enrollmentId: number | null;
  campaignId: number | null;
}

/**
 * A spam complaint (an RFC 5965 feedback report matched to a message we sent): the address is
 * suppressed `complained`, every active or paused enrollment of the contact stopped `complained`,
 * and, unless the address was already suppressed for a complaint (a second report of the same
 * recipient), `email.complained` fires and the campaign's `complained` counts. True when it counted.
 */
export async function recordComplaint(manager: EntityManager, c: Complaint): Promise<boolean> {
  const { entry, created } = await addSuppression(manager, c.workspaceId, { email: c.email }, 'complained');
  await transitions.stopAllOfContact(c.workspaceId, c.contactId, 'complained', manager);
  if (!created && entry.reason === 'complained') return false;
  if (c.campaignId !== null) await bumpMetric(manager, c.workspaceId, c.campaignId, 'complained');
  await recordEvent(manager, {
    workspaceId: c.workspaceId,
    type: 'email.complained',
    data: {
      contact_id: c.contactId,
      email: c.email,
      feedback_type: c.feedbackType,
      enrollment_id: c.enrollmentId,
      campaign_id: c.campaignId,
    },
  });
  return true;
}

/** The enrollment stop reason for a contact that became unsendable through a suppression entry. */
export function stopReasonForSuppression(reason: string | null): StopReason {
  return reason === 'unsubscribed' || reason === 'bounced' || reason === 'complained' ? reason : 'manual';
}
