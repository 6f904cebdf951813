/**
 * What happens to a contact after mail arrives: the one owner of the decision (docs/sequences-that-react.md).
 * Ingestion (a reply, an auto-reply, a bounce report, a complaint) and the reply categories (a category
 * decided by the rules, the AI or a correction) record what arrived and call here, in their
 * transaction, for its consequences on the contact's enrollments, the suppression list and the
 * contact: stops, unsubscribes, and the moves, holds and referrals of sequences that react. Each table
 * is still written through its owner (enrollments, suppressions, contacts, threads, events).
 */
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { In, IsNull, Not } from 'typeorm';
import { EnrollmentEffects, type Bounce, type Complaint } from '../enrollments/enrollment-effects.js';
import { EnrollmentsRepository } from '../enrollments/enrollments.repository.js';
import type { Enrollment } from '../enrollments/entities/enrollment.entity.js';
import { Outbox } from '../events/outbox.js';
import { ThreadMovesRepository } from '../threads/thread-moves.repository.js';
import type { Subsequence } from './entities/subsequence.entity.js';
import { SubsequencesRepository } from './subsequences.repository.js';
import type { StepAttribution } from '../analytics/metrics.js';
import type { ReplyCategory } from '../threads/reply-category.js';
import { readFollowUpDate, readReferral, readReturnDate } from '../mail-reading/reply-dates.js';
import { ContactWritesRepository } from '../contacts/contact-writes.repository.js';
import { SuppressionStore } from '../suppressions/suppression-store.js';
import { contactFromRow, toContactView } from '../contacts/contact.view.js';
import { followUpAt } from './follow-up.js';
import { EnrollmentTransitionsRepository } from '../enrollments/enrollments.repository.js';
import { awayUntil, isAwayNotice } from './away.js';
import { effectiveConfig, type WorkspaceConfig } from '../workspaces/workspace-config.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';
import { isValidEmail } from '../../common/email/address.js';

export interface ReplyArrived {
  workspaceId: WorkspaceId;
  /** The enrollment of the message replied to, if any. */
  enrollmentId: number | null;
  campaignId: number | null;
  /** The address the replied-to message went to. */
  email: string;
  /** The campaign's stop-on-reply policy (a campaign-less thread: stop, the contact only). */
  policy: { stopOnReply: boolean; scope: 'contact' | 'domain' };
  /** The company domain to stop on (null: a free-mail or unreadable domain, never stopped company-wide). */
  companyDomain: string | null;
}

export interface CategoryArrived {
  workspaceId: WorkspaceId;
  threadId: number;
  /** The reply whose category this is. */
  messageId?: number;
  category: ReplyCategory;
  /** The reply's category before (a correction), or null. */
  previousCategory: ReplyCategory | null;
  /** The reply's thread: its contact, the contact's address and the campaign (null: none). */
  context:
    | { contact_id: number; email: string | null; campaign_id: number | null; enrollment_id?: number | null }
    | undefined;
  /**
   * Who wrote the reply: its `From`, and whether that is the thread's contact (the contact's address
   * or one the thread's mail went to, without case). Undefined: the reply is gone.
   */
  writer?: { address: string; is_contact: boolean };
}

/** A stored `From` that is an address the service accepts (not the display text of a mail without one). */
const isAddress = (s: string): boolean => isValidEmail(s.toLowerCase());

@Injectable()
export class Reactions {
  constructor(
    private readonly effects: EnrollmentEffects,
    private readonly enrollments: EnrollmentsRepository,
    private readonly subsequences: SubsequencesRepository,
    private readonly threads: ThreadMovesRepository,
    private readonly outbox: Outbox,
    private readonly transitions: EnrollmentTransitionsRepository,
    private readonly contacts: ContactWritesRepository,
    private readonly suppressions: SuppressionStore,
  ) {}

  /**
   * A person's reply was recorded: the enrollment of the message replied to stops `replied` (when the
   * campaign stops on reply), and with the `domain` scope every enrollment of the campaign at the
   * same company domain.
   */
  async afterReply(m: EntityManager, r: ReplyArrived): Promise<void> {
    const ws = r.workspaceId;
    if (r.enrollmentId !== null && r.policy.stopOnReply) {
      await this.effects.stop(m, ws, r.enrollmentId, 'replied');
    }
    if (r.campaignId && r.policy.stopOnReply && r.policy.scope === 'domain' && r.companyDomain) {
      await this.effects.stopCompanyOnReply(m, ws, r.campaignId, r.companyDomain, r.email);
    }
  }

  /**
   * A reply's category was decided (or corrected). A reply speaks for its writer: only one the
   * thread's contact wrote unsubscribes the contact (exactly like the one-click link,
   * `EnrollmentEffects.recordUnsubscribe`), moves it into a subsequence, sets its follow-up day or
   * refers a colleague. Anyone else in the thread (a forward, a CC, a forged `From`) moves nobody; their
   * written opt-out suppresses their own address and stops the thread's enrollment.
   */
  async afterCategory(m: EntityManager, c: CategoryArrived): Promise<void> {
    const ws = c.workspaceId;
    const context = c.context;
    const byContact = c.writer?.is_contact === true;
    if (c.category === 'unsubscribe_request' && context) {
      const writer = c.writer;
      const email = context.email ?? writer?.address;
      if (byContact && email) {
        // Takes the workspace's suppression lock before any contact row is touched.
        await this.effects.recordUnsubscribe(m, {
          workspaceId: ws,
          contactId: context.contact_id,
          email,
          campaignId: context.campaign_id,
          attribution: { threadId: c.threadId } satisfies StepAttribution,
        });
      } else {
        // Someone else in the thread (a forward, a CC, a forged From): their own address is
        // suppressed and the thread's enrollment stops; the contact stays sendable.
        await this.effects.recordOptOutOfOther(m, {
          workspaceId: ws,
          email: writer && isAddress(writer.address) ? writer.address : null,
          enrollmentId: context.enrollment_id ?? null,
        });
      }
    }
    if (!byContact) return;
    // The referral first: it takes the suppression list's lock, before the move locks enrollments.
    if (c.category === 'wrong_person') await this.referral(m, c);
    await this.moveOnCategory(m, c);
  }

  /**
   * A `wrong_person` reply in a campaign (CONTRACT §23): the address its own words name is kept on the
   * thread; one at the replier's own registrable domain, not suppressed and not enrolled in the
   * campaign becomes a contact if new (`source: referral`, the company copied) and enters the
   * campaign's first active `referral` subsequence, in a new conversation from the thread's inbox.
   * `contact.referred` fires whenever the address is (or became) a contact of the workspace, `enrolled`
   * saying whether this referral enrolled it; an address that is not a contact and cannot become one
   * (suppressed, the contact cap) is only recorded.
   */
  private async referral(m: EntityManager, c: CategoryArrived): Promise<void> {
    const ws = c.workspaceId;
    const campaignId = c.context?.campaign_id ?? null;
    if (!c.context || campaignId === null || c.messageId === undefined) return;
    const ctx = await this.subsequences.referralContext(ws, c.messageId, m);
    if (!ctx) return;
    const replier = isAddress(ctx.from_address) ? ctx.from_address : (c.context.email ?? '');
    const named = readReferral(ctx.body ?? '', replier, {
      anyDomain: true,
      exclude: c.context.email ? [c.context.email] : [],
    });
    if (!named) return;
    const email = named.email.toLowerCase();
    await this.threads.setReferral(ws, c.threadId, email, m);
    if (named.sameDomain === false) return;
    // The suppression list's shared lock, like every contact insert: a suppression of this address
    // added at the same moment is either committed (and seen below) or waits until this transaction
    // has committed the contact, which it then marks unsendable. Taken before any contact or
    // enrollment row is locked here (the list's writers lock those after the list).
    await this.suppressions.lockShared(m, ws);
    const target = await this.contacts.referralTarget(ws, email, m);
    const referred = (contactId: number, enrolled: boolean) =>
      this.outbox.record(m, {
        workspaceId: ws,
        type: 'contact.referred',
        data: {
          contact_id: contactId,
          referred_by_contact_id: c.context!.contact_id,
          thread_id: c.threadId,
          campaign_id: campaignId,
          enrolled,
        },
      });
    let contactId = target.contact ? Number(target.contact.id) : null;
    if (target.suppressed || target.contact?.suppression_reason) {
      if (contactId !== null) await referred(contactId, false);
      return;
    }
    if (contactId !== null) {
      const enrolled = await this.enrollments.findOne(ws, { campaignId, contactId }, m);
      if (enrolled) return referred(contactId, false);
    } else {
      if (target.room <= 0) return;
      const row = await this.contacts.insertReferral(
        ws,
        {
          email,
          first_name: named.firstName,
          last_name: named.lastName,
          company: ctx.company,
          referred_by_contact_id: c.context.contact_id,
        },
        m,
      );
      if (!row) return;
      contactId = Number(row.id);
      const contact = contactFromRow(row);
      await this.outbox.record(m, {
        workspaceId: ws,
        type: 'contact.created',
        data: { contact: toContactView(contact) },
        occurredAt: contact.createdAt,
      });
    }
    const subs = await this.subsequences.ofCampaign(ws, campaignId, m);
    const sub = subs.find((s) => s.status === 'active' && s.trigger.type === 'referral');
    let enrolled = false;
    if (sub) {
      const id = await this.enrollments.insertIfAbsent(
        ws,
        {
          campaignId,
          contactId,
          subsequenceId: sub.id,
          parentEnrollmentId: null,
          inboxId: ctx.inbox_id,
          status: 'active',
          currentStep: 0,
          nextStepAt: new Date(Date.now() + sub.startAfterDays * 86_400_000),
        },
        m,
      );
      enrolled = id !== null;
    }
    await referred(contactId, enrolled);
  }

  /**
   * A category trigger (CONTRACT §23): a correction first takes back the unsent move the old category
   * made (that subsequence enrollment ends `cancelled`, the conversation returns to its parent); then
   * the first active subsequence (position order) whose trigger names the category is entered, unless
   * the contact is in a subsequence of the campaign already or entered this one before.
   */
  private async moveOnCategory(m: EntityManager, c: CategoryArrived): Promise<void> {
    const ws = c.workspaceId;
    const campaignId = c.context?.campaign_id ?? null;
    const enrollmentId = c.context?.enrollment_id ?? null;
    if (campaignId === null || enrollmentId === null) {
      if (c.category === 'not_now') await this.followUp(m, c);
      return;
    }
    const subs = await this.subsequences.ofCampaign(ws, campaignId, m);
    if (subs.length === 0) {
      if (c.category === 'not_now') await this.followUp(m, c);
      return;
    }
    let current = await this.enrollments.findOne(ws, { id: enrollmentId }, m);
    if (!current) return;
    const names = (s: Subsequence | undefined, category: ReplyCategory | null) =>
      category !== null && s?.trigger.type === 'category' && s.trigger.categories.includes(category);
    if (
      c.previousCategory !== null &&
      c.previousCategory !== c.category &&
      current.subsequenceId !== null &&
      current.parentEnrollmentId !== null &&
      current.status === 'active' &&
      current.currentStep === 0
    ) {
      const started = subs.find((s) => Number(s.id) === Number(current!.subsequenceId));
      if (names(started, c.previousCategory) && !names(started, c.category)) {
        await this.effects.stop(m, ws, current.id, 'cancelled', `reply re-categorised ${c.category}`);
        await this.threads.moveToEnrollment(ws, c.threadId, Number(current.parentEnrollmentId), m);
        const parent = await this.enrollments.findOne(ws, { id: Number(current.parentEnrollmentId) }, m);
        if (!parent) return;
        current = parent;
      }
    }
    const startsAt = c.category === 'not_now' ? await this.followUp(m, c) : null;
    const target = subs.find((s) => s.status === 'active' && names(s, c.category));
    if (!target) return;
    await this.enter(m, c.threadId, current, target, new Date(), c.category, startsAt);
  }

  /**
   * A `not_now` reply's follow-up day (CONTRACT §23): the day its own words name, at the campaign's
   * start time in the contact's time zone (else the campaign's), kept on the thread; null when none.
   */
  private async followUp(m: EntityManager, c: CategoryArrived): Promise<Date | null> {
    if (c.messageId === undefined) return null;
    const ctx = await this.subsequences.followUpContext(c.workspaceId, c.messageId, m);
    if (!ctx) return null;
    const received = new Date(ctx.received_at);
    const day = readFollowUpDate(ctx.body ?? '', received);
    const zone = ctx.timezone ?? ctx.schedule?.timezone ?? 'UTC';
    const at = followUpAt(day?.day ?? null, ctx.schedule?.start_time ?? '09:00', zone, received);
    await this.threads.setFollowUp(c.workspaceId, c.threadId, at, m);
    return at;
  }

  /**
   * Moves the contact of `from` into `target`: `from` ends (`replied` when still running), a new
   * enrollment starts in the subsequence (first step due `start_after_days` after `at`), from the same
   * inbox and in the same thread; `enrollment.branched`. False when the contact is in a subsequence of
   * the campaign already, or entered this one before (no loops).
   */
  async enter(
    m: EntityManager,
    threadId: number | null,
    from: Enrollment,
    target: Subsequence,
    at: Date,
    trigger: string,
    startsAtOverride: Date | null = null,
  ): Promise<boolean> {
    const ws = from.workspaceId;
    if (Number(from.subsequenceId) === Number(target.id)) return false;
    const inSubsequence = await this.enrollments.findMany(
      ws,
      {
        campaignId: from.campaignId,
        contactId: from.contactId,
        subsequenceId: Not(IsNull()),
        status: In(['active', 'paused']),
      },
      undefined,
      m,
    );
    if (inSubsequence.some((e) => e.id !== from.id)) return false;
    const entered = await this.enrollments.findOne(
      ws,
      { subsequenceId: target.id, contactId: from.contactId },
      m,
    );
    if (entered) return false;
    if (from.status === 'active' || from.status === 'paused')
      await this.effects.stop(m, ws, from.id, 'replied', `moved to subsequence ${target.id}`);
    const startsAt = startsAtOverride ?? new Date(at.getTime() + target.startAfterDays * 86_400_000);
    const thread = threadId === null ? undefined : await this.threads.findThread(ws, threadId, m);
    const id = await this.enrollments.insertIfAbsent(
      ws,
      {
        campaignId: from.campaignId,
        contactId: from.contactId,
        subsequenceId: target.id,
        parentEnrollmentId: from.id,
        inboxId: from.inboxId ?? thread?.inbox_id ?? null,
        status: 'active',
        currentStep: 0,
        nextStepAt: startsAt,
      },
      m,
    );
    if (id === null) return false;
    if (threadId !== null) await this.threads.moveToEnrollment(ws, threadId, Number(id), m);
    await this.outbox.record(m, {
      workspaceId: ws,
      type: 'enrollment.branched',
      data: {
        enrollment_id: Number(id),
        parent_enrollment_id: from.id,
        contact_id: from.contactId,
        campaign_id: from.campaignId,
        subsequence_id: Number(target.id),
        trigger,
        starts_at: startsAt.toISOString(),
      },
    });
    return true;
  }

  /**
   * An enrollment received every step without a reply (CONTRACT §23): the campaign's first active
   * `completed` subsequence is entered, due `start_after_days` later, in the same thread.
   */
  async afterCompleted(m: EntityManager, e: Enrollment): Promise<boolean> {
    // The campaign's own steps: a subsequence that runs out moves nobody on.
    if (e.subsequenceId !== null) return false;
    const subs = await this.subsequences.ofCampaign(e.workspaceId, e.campaignId, m);
    const target = subs.find((s) => s.status === 'active' && s.trigger.type === 'completed');
    if (!target) return false;
    const threadId = await this.threads.threadOfEnrollment(e.workspaceId, e.id, m);
    return this.enter(m, threadId, e, target, new Date(), 'completed');
  }

  /**
   * An auto-reply (CONTRACT §23) from the address the message went to: an away notice holds the enrollment's next step until the first
   * working day after the return date it names (at most 60 days ahead), or `holdDays` days without
   * one (`out_of_office_hold_days`; 0: no hold); `enrollment.held`. Other auto-replies change nothing. The held enrollment, if any.
   */
  async afterAutoReply(
    m: EntityManager,
    a: {
      workspaceId: WorkspaceId;
      enrollmentId: number | null;
      subject: string;
      ownWords: string;
      replyDate: Date;
      /** The notice came from the address the message went to (else it speaks for someone else). */
      fromRecipient: boolean;
    },
  ): Promise<Date | null> {
    if (a.enrollmentId === null || !a.fromRecipient || !isAwayNotice(a.subject, a.ownWords)) return null;
    const config = effectiveConfig(
      (await this.subsequences.workspaceConfig(a.workspaceId, m)) as Partial<WorkspaceConfig> | null,
    );
    const returns = readReturnDate(a.ownWords, a.replyDate);
    const until = awayUntil(returns?.day ?? null, a.replyDate, config.out_of_office_hold_days);
    if (until === null) return null;
    const held = await this.transitions.hold(a.workspaceId, a.enrollmentId, until, 'out_of_office', m);
    if (!held) return null;
    await this.outbox.record(m, {
      workspaceId: a.workspaceId,
      type: 'enrollment.held',
      data: {
        enrollment_id: held.id,
        contact_id: held.contact_id,
        campaign_id: held.campaign_id,
        held_until: until.toISOString(),
        reason: 'out_of_office',
      },
    });
    return until;
  }

  /** A bounce report matched to a sent message (CONTRACT §18). */
  afterBounce(m: EntityManager, b: Bounce): Promise<{ suppressed: boolean; senderSide: boolean }> {
    return this.effects.recordBounce(m, b);
  }

  /** A spam complaint matched to a sent message. */
  afterComplaint(m: EntityManager, c: Complaint): Promise<boolean> {
    return this.effects.recordComplaint(m, c);
  }
}
