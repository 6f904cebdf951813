/**
 * The engine's effects on enrollments, contacts and the suppression list, shared by the send path,
 * mail ingestion and unsubscribes (`EnrollmentEffects`, exported by the enrollments module). Every
 * method runs inside the caller's transaction (manager) so each effect commits together with its event
 * and its metric; each table is written through its owner (messages: threads, the list: suppressions,
 * counters: analytics, events: events, the campaign's pause: campaigns).
 */
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { MetricCounters, type StepAttribution } from '../analytics/metrics.js';
import { BounceProtection } from '../campaigns/bounce-protection.js';
import { ContactVerificationRepository } from '../contacts/contact-verification.repository.js';
import { MessageWritesRepository } from '../threads/message-writes.repository.js';
import type { StopReason } from './enrollment-state.js';
import { toEnrollmentView } from './enrollment.view.js';
import { Outbox } from '../events/outbox.js';
import { SuppressionStore } from '../suppressions/suppression-store.js';
import type { BounceView } from '../mail-reading/bounce.view.js';
import { RECIPIENT_SOFT_REASONS, SENDER_SIDE_REASONS } from '../mail-reading/types.js';
import { EnrollmentsRepository, EnrollmentTransitionsRepository } from './enrollments.repository.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

export interface Bounce {
  workspaceId: WorkspaceId;
  contactId: number;
  email: string;
  enrollmentId: number | null;
  campaignId: number | null;
  /** The outbound message that bounced (the SMTP send, or the original a report is about). */
  messageRowId: number | null;
  /** What the report (or the SMTP reply) says, reason decided (CONTRACT §18). */
  verdict: BounceView;
}

/** How many recipient-side soft bounces of one contact within SOFT_BOUNCE_DAYS suppress it. */
export const SOFT_BOUNCES_TO_SUPPRESS = 3;
export const SOFT_BOUNCE_DAYS = 30;

export interface Complaint {
  workspaceId: WorkspaceId;
  contactId: number;
  email: string;
  feedbackType: string;
  enrollmentId: number | null;
  campaignId: number | null;
}

export interface Unsubscribe {
  workspaceId: WorkspaceId;
  contactId: number;
  email: string;
  /** The campaign of the mail the request came from (counted there), if any. */
  campaignId: number | null;
  /** Which step and variant the unsubscribe is counted for. */
  attribution: StepAttribution;
}

@Injectable()
export class EnrollmentEffects {
  constructor(
    private readonly transitions: EnrollmentTransitionsRepository,
    private readonly messages: MessageWritesRepository,
    private readonly suppressions: SuppressionStore,
    private readonly counters: MetricCounters,
    private readonly outbox: Outbox,
    private readonly bounceProtection: BounceProtection,
    private readonly verification: ContactVerificationRepository,
    private readonly enrollments: EnrollmentsRepository,
  ) {}

  /** active|paused → stopped with a reason; a no-op for an enrollment already finished. */
  async stop(
    manager: EntityManager,
    workspaceId: WorkspaceId,
    enrollmentId: number,
    reason: StopReason,
    note: string | null = null,
  ): Promise<boolean> {
    return this.transitions.stop(workspaceId, enrollmentId, reason, note, manager);
  }

  /**
   * The address gate skipped the enrollment's step (CONTRACT §24): it ends `skipped` with `reason`,
   * `enrollment.stopped` fires with the enrollment, and the step's `skipped_invalid` or `skipped_risky` counter (of the enrollment's subsequence, else the campaign's) counts it once.
   */
  async skipForAddress(
    manager: EntityManager,
    workspaceId: WorkspaceId,
    campaignId: number,
    enrollmentId: number,
    stepPosition: number,
    reason: 'address_invalid' | 'address_risky',
  ): Promise<boolean> {
    const note = reason === 'address_invalid' ? 'address verified invalid' : 'address verified risky';
    const skipped = await this.transitions.skip(workspaceId, enrollmentId, reason, note, manager);
    if (skipped) {
      const row = await this.enrollments.findOne(workspaceId, { id: enrollmentId }, manager);
      if (!row) return skipped;
      await this.outbox.record(manager, {
        workspaceId,
        type: 'enrollment.stopped',
        data: { enrollment: toEnrollmentView(row) },
      });
      await this.counters.bumpStepAt(
        manager,
        workspaceId,
        campaignId,
        reason === 'address_invalid' ? 'skipped_invalid' : 'skipped_risky',
        {
          subsequenceId: row.subsequenceId === null ? null : Number(row.subsequenceId),
          position: stepPosition,
        },
      );
    }
    return skipped;
  }

  /**
   * Stop on reply for the whole company: every active or paused enrollment of the campaign whose
   * contact's address is at `domain` stops `replied`, with a note naming the reply's sender. Callers
   * leave out free-mail domains. Returns how many stopped.
   */
  async stopCompanyOnReply(
    manager: EntityManager,
    workspaceId: WorkspaceId,
    campaignId: number,
    domain: string,
    replier: string,
  ): Promise<number> {
    const stopped = await this.transitions.stopAllOfCampaignDomain(
      workspaceId,
      campaignId,
      domain,
      'replied',
      `reply from ${replier} (same company domain ${domain})`,
      manager,
    );
    return stopped.length;
  }

  /**
   * A bounce (a delivery-failure report matched to a sent message, or an SMTP refusal), recorded in the
   * caller's transaction (CONTRACT §18). The message carries the verdict; `email.bounced` fires for hard
   * and soft bounces alike, with the verdict.
   * - hard (the address cannot receive mail): the contact's verdict becomes `invalid`/`mailbox_unknown`,
   *   the address is suppressed `bounced`, the enrollment stopped
   *   `bounced`, `bounced` counts (daily, step and variant) and bounce protection may pause the campaign;
   * - soft: `soft_bounced` counts; the contact stays sendable and its enrollment goes on, except that the
   *   third recipient-side soft bounce (`mailbox_full`, `suspended`, ...) of a contact within 30 days
   *   suppresses it and stops the enrollment `bounced`. Sender-side reasons never count against the
   *   contact: the caller records them on the inbox (`senderSide` in the result).
   * Returns whether the address was suppressed and whether the reason lies on the sender's side.
   */
  async recordBounce(
    manager: EntityManager,
    b: Bounce,
  ): Promise<{ suppressed: boolean; senderSide: boolean }> {
    const { verdict } = b;
    if (b.messageRowId !== null)
      await this.messages.markBounce(b.workspaceId, b.messageRowId, verdict, manager);
    let suppressed = false;
    if (verdict.hard) {
      suppressed = true;
      // The address verdict (CONTRACT §24): a hard bounce proves the mailbox unknown.
      await this.verification.markHardBounced(b.workspaceId, b.contactId, manager);
    } else if (RECIPIENT_SOFT_REASONS.has(verdict.reason)) {
      const recent = await this.messages.countRecentSoftBounces(
        b.workspaceId,
        b.contactId,
        [...RECIPIENT_SOFT_REASONS],
        SOFT_BOUNCE_DAYS,
        manager,
      );
      suppressed = recent >= SOFT_BOUNCES_TO_SUPPRESS;
    }
    if (suppressed) {
      await this.suppressions.suppressAddress(manager, b.workspaceId, b.email, 'bounced');
      if (b.enrollmentId !== null) await this.stop(manager, b.workspaceId, b.enrollmentId, 'bounced');
    }
    const metric = verdict.hard ? 'bounced' : 'soft_bounced';
    if (b.campaignId !== null) {
      const at = new Date();
      await this.counters.bump(manager, b.workspaceId, b.campaignId, metric, 1, at);
      // Per step and variant: the message that bounced (else the enrollment's last one sent).
      const to =
        b.messageRowId !== null ? { messageId: b.messageRowId } : { enrollmentId: b.enrollmentId ?? 0 };
      await this.counters.bumpStep(manager, b.workspaceId, b.campaignId, metric, to, at);
    }
    await this.outbox.record(manager, {
      workspaceId: b.workspaceId,
      type: 'email.bounced',
      data: {
        contact_id: b.contactId,
        email: b.email,
        bounce_type: verdict.hard ? 'hard' : 'soft',
        status_code: verdict.status ?? (verdict.smtp_code === null ? null : String(verdict.smtp_code)),
        diagnostic: verdict.diagnostic,
        bounce: verdict,
        suppressed,
        message_id: b.messageRowId,
        enrollment_id: b.enrollmentId,
        campaign_id: b.campaignId,
      },
    });
    if (verdict.hard && b.campaignId !== null)
      await this.bounceProtection.pauseOnBounceRate(manager, b.workspaceId, b.campaignId);
    return { suppressed, senderSide: SENDER_SIDE_REASONS.has(verdict.reason) };
  }

  /**
   * A spam complaint (an RFC 5965 feedback report matched to a message we sent): the address is
   * suppressed `complained`, every active or paused enrollment of the contact stopped `complained`,
   * and, unless the address was already suppressed for a complaint (a second report of the same
   * recipient), `email.complained` fires and the campaign's `complained` counts. True when it counted.
   */
  async recordComplaint(manager: EntityManager, c: Complaint): Promise<boolean> {
    const { entry, created } = await this.suppressions.add(
      manager,
      c.workspaceId,
      { email: c.email },
      'complained',
    );
    await this.transitions.stopAllOfContact(c.workspaceId, c.contactId, 'complained', manager);
    if (!created && entry.reason === 'complained') return false;
    if (c.campaignId !== null) await this.counters.bump(manager, c.workspaceId, c.campaignId, 'complained');
    await this.outbox.record(manager, {
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

  /**
   * An unsubscribe, by the one-click link or in words (a reply categorised `unsubscribe_request`): the
   * address is suppressed `unsubscribed`, every active or paused enrollment of the contact stopped
   * `unsubscribed`, and, unless the address was already suppressed for an unsubscribe, `unsubscribed`
   * counts once on the campaign (daily, step and variant). Doing it again changes nothing and counts
   * nothing.
   */
  async recordUnsubscribe(
    manager: EntityManager,
    u: Unsubscribe,
  ): Promise<{ already: boolean; enrollmentsStopped: number }> {
    const { entry, created } = await this.suppressions.add(
      manager,
      u.workspaceId,
      { email: u.email },
      'unsubscribed',
    );
    const stopped = await this.transitions.stopAllOfContact(
      u.workspaceId,
      u.contactId,
      'unsubscribed',
      manager,
    );
    const already = !created && entry.reason === 'unsubscribed';
    if (!already && u.campaignId !== null && u.campaignId > 0) {
      await this.counters.bump(manager, u.workspaceId, u.campaignId, 'unsubscribed');
      await this.counters.bumpStep(manager, u.workspaceId, u.campaignId, 'unsubscribed', u.attribution);
    }
    return { already, enrollmentsStopped: stopped };
  }

  /**
   * A written opt-out from someone in a thread who is not its contact (a forward, a CC, a forged
   * `From`): it speaks for its writer only. The writer's address is suppressed `unsubscribed` (any
   * contact with that address becomes unsendable) and the thread's enrollment stops `unsubscribed`;
   * the thread's contact stays sendable and nothing counts on the campaign (no contact of it opted out).
   */
  async recordOptOutOfOther(manager: EntityManager, o: OptOutOfOther): Promise<void> {
    if (o.email !== null)
      await this.suppressions.suppressAddress(manager, o.workspaceId, o.email, 'unsubscribed');
    if (o.enrollmentId !== null) await this.stop(manager, o.workspaceId, o.enrollmentId, 'unsubscribed');
  }
}

/** A written opt-out by someone other than the thread's contact (CONTRACT §26). */
export interface OptOutOfOther {
  workspaceId: WorkspaceId;
  /** The writer's address, suppressed; null when the reply names none. */
  email: string | null;
  /** The thread's enrollment, stopped. */
  enrollmentId: number | null;
}

/** The enrollment stop reason for a contact that became unsendable through a suppression entry. */
export function stopReasonForSuppression(reason: string | null): StopReason {
  return reason === 'unsubscribed' || reason === 'bounced' || reason === 'complained' ? reason : 'manual';
}
