/**
 * Recording claimed steps before SMTP, one transaction for a chunk of enrollments (a single
 * enrollment is a chunk of one): one locking read for all of them, the decisions (window,
 * suppression, capacity, a step recorded before), and one insert for every step to send. What is not
 * sent now is settled in the same transaction: deferred, stopped, paused, completed or skipped.
 */
import type { EntityManager } from 'typeorm';
import { logger } from '../../../common/logging/logger.js';
import { appConfig } from '../../../config/app-config.js';
import { rollbackToSavepoint, savepoint } from '../../../database/query-rows.js';
import { stopReasonForSuppression } from '../../enrollments/enrollment-effects.js';
import type { Inbox } from '../../inboxes/entities/inbox.entity.js';
import { effectiveDailyLimit } from '../../inboxes/ramp-up.js';
import type { CapacityRepository } from './capacity.repository.js';
import { StepRenderError } from './compose.js';
import {
  RETRY_DELAY_SECONDS,
  type Draft,
  type DueStep,
  type EngineWriters,
  type Outcome,
  type Prepared,
  type StepInput,
  type TickContext,
} from './engine.types.js';
import { inDoubtNote, type SendFailures } from './failures.js';
import type { Finaliser, GroupWrites } from './finaliser.js';
import { renderStep } from './render-step.js';
import { giveBack, reserve, takeFromBank } from './reservations.js';
import { nextWindowOpening, sendingTimezone } from './send-window.js';
import { addressGate } from './verification-gate.js';
import type { SendRepository } from './send.repository.js';
import type { OutboundDraft } from '../../threads/message-writes.repository.js';
import type { WorkspaceId } from '../../../common/tenant/workspace-id.js';

type Decision = Draft | Outcome;

const startOfNextUtcDay = (now: Date): Date =>
  new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
const minDate = (a: Date, b: Date): Date => (a.getTime() <= b.getTime() ? a : b);

/** The threads module's row of a draft (its thread when first, its `sending` message). */
const outboundDraft = (d: Draft): OutboundDraft => ({
  enrollmentId: d.enrollmentId,
  workspaceId: d.workspaceId,
  inboxId: d.inbox.id,
  contactId: d.contactId,
  campaignId: d.campaignId,
  threadId: d.threadId,
  from: d.inbox.email,
  to: d.mail.to,
  subject: d.mail.subject,
  body: d.mail.text,
  messageId: d.mail.messageId,
  inReplyTo: d.mail.inReplyTo ?? null,
  stepPosition: d.stepPosition,
  variant: d.variant,
});

/** A first step rotates over the campaign's inboxes, starting at a place the enrollment id picks. */
export function rotate<T>(items: T[], seed: number): T[] {
  if (items.length === 0) return items;
  const start = seed % items.length;
  return [...items.slice(start), ...items.slice(0, start)];
}

export class StepRecorder {
  constructor(
    private readonly sends: SendRepository,
    private readonly capacity: CapacityRepository,
    private readonly finaliser: Finaliser,
    private readonly failures: SendFailures,
    private readonly w: EngineWriters,
  ) {}

  /** Records the steps of claimed enrollments `ids` that can be sent now; settles the others. */
  async record(m: EntityManager, ids: number[], ctx: TickContext): Promise<Prepared[]> {
    const now = new Date();
    // Not found: no longer active, or deferred, resolved or claimed again since this claim.
    const due = await this.sends.loadDueAcrossWorkspaces(ids, ctx.lease, m);
    const inboxIds = new Set<string>();
    for (const d of due) {
      if (d.enrollment.inboxId) inboxIds.add(d.enrollment.inboxId);
      else for (const i of d.campaign.inboxIds) inboxIds.add(i);
    }
    const inboxes = await this.sends.findInboxesAcrossWorkspaces([...inboxIds], m);
    const writes = this.finaliser.newGroup();
    const drafts: Draft[] = [];
    for (const d of due) {
      const decision = await this.decide(m, d, inboxes, ctx, now, writes);
      if (typeof decision !== 'string') drafts.push(decision);
    }
    await writes.flush(m);
    if (drafts.length === 0) return [];
    const inserted = await this.w.messages.insertDraftsAcrossWorkspaces(drafts.map(outboundDraft), m);
    await this.w.enrollments.chooseInboxesAcrossWorkspaces(
      drafts.map((d) => ({ workspaceId: d.workspaceId, enrollmentId: d.enrollmentId, inboxId: d.inbox.id })),
      m,
    );
    return drafts.map((d) => {
      const row = inserted.get(d.enrollmentId);
      if (!row) throw new Error(`send: record lost enrollment ${d.enrollmentId}`);
      return { ...d, messageRowId: row.id, threadId: row.threadId };
    });
  }

  private async decide(
    m: EntityManager,
    d: DueStep,
    inboxes: Inbox[],
    ctx: TickContext,
    now: Date,
    writes: GroupWrites,
  ): Promise<Decision> {
    const { enrollment, campaign, steps, config } = d;
    const ws = enrollment.workspaceId;
    if (campaign.status !== 'active') return 'skipped';
    const step = steps[enrollment.currentStep];
    if (!step) {
      await this.finaliser.complete(m, [{ id: enrollment.id, step: enrollment.currentStep }], writes);
      return 'stopped';
    }

    // A step recorded before: sent, failed, or left by a crash.
    const existing = d.outbound.find((x) => x.step_position === step.position);
    if (existing) {
      const resolved = await this.resolveExisting(m, d, step.position, existing, writes);
      if (resolved !== 'record') return resolved;
    }

    // The window (in the contact's timezone when the campaign says so) and the scheduled start.
    const contact = d.contact;
    const opening = nextWindowOpening(campaign.schedule, now, {
      timezone: sendingTimezone(campaign.schedule, campaign.sendInContactTimezone, contact?.timezone),
      startAt: campaign.startAt,
    });
    if (!opening || opening.getTime() > now.getTime()) {
      await this.w.enrollments.defer(ws, enrollment.id, opening ?? new Date(now.getTime() + 86_400_000), m);
      return 'deferred';
    }
    if (!contact) {
      await this.w.effects.stop(m, ws, enrollment.id, 'manual', 'contact no longer exists');
      return 'stopped';
    }
    if (contact.suppression_reason) {
      const reason = stopReasonForSuppression(contact.suppression_reason as string);
      await this.w.effects.stop(m, ws, enrollment.id, reason, 'address is on the suppression list');
      return 'stopped';
    }
    // The address verdict, under the campaign's `verification` setting.
    const gate = addressGate(
      campaign.verification,
      contact.verification_status,
      d.enrolledAt,
      now,
      appConfig().verifyAddresses,
    );
    if (gate.kind === 'skip') {
      await this.w.effects.skipForAddress(
        m,
        ws,
        enrollment.campaignId,
        enrollment.id,
        step.position,
        gate.reason,
      );
      return 'stopped';
    }
    if (gate.kind === 'wait') {
      await this.w.enrollments.defer(ws, enrollment.id, gate.until, m);
      return 'deferred';
    }

    // Follow-ups keep their inbox; a first step rotates over the campaign's inboxes.
    const candidates = enrollment.inboxId ? [enrollment.inboxId] : rotate(campaign.inboxIds, enrollment.id);
    const input: StepInput = {
      enrollment,
      step,
      contact,
      config,
      thread: d.thread,
      // A subsequence's steps answer in the conversation it continues (the reply that moved it included).
      previous: d.conversation
        ? d.conversation.map((id) => ({ message_id: id }))
        : d.outbound.filter((x) => x.status === 'sent').map((x) => ({ message_id: x.message_id ?? '' })),
    };
    const today = now.toISOString().slice(0, 10);
    const { bank } = ctx;
    let earliest = startOfNextUtcDay(now);
    for (const inboxId of candidates) {
      const inbox = inboxes.find((i) => i.id === inboxId && i.workspaceId === ws);
      if (!inbox || inbox.status !== 'active') {
        // A follow-up waits for its own inbox to come back; rotation just moves on.
        earliest = minDate(earliest, new Date(now.getTime() + RETRY_DELAY_SECONDS * 1000));
        continue;
      }
      if (inbox.sendHeldUntil && inbox.sendHeldUntil.getTime() > now.getTime()) {
        // The provider asked this inbox to wait (Retry-After): the same, until the hold ends.
        earliest = minDate(earliest, inbox.sendHeldUntil);
        continue;
      }
      if (
        !bank?.holdsInbox(inbox.id) &&
        inbox.sentTodayDate === today &&
        inbox.sentToday >= effectiveDailyLimit(inbox, now)
      ) {
        continue; // full today
      }
      if (bank) {
        // Slots come from the tick's blocks (no hot row written here): take them first, then render.
        const verdict = await takeFromBank(bank, enrollment, campaign.dailyLimit, inbox, config);
        if (verdict === true) {
          try {
            return await renderStep(input, inbox, appConfig().publicUrl);
          } catch (err) {
            if (!(err instanceof StepRenderError)) throw err;
            giveBack(bank, enrollment, campaign.dailyLimit, inbox);
            return this.pauseForRenderError(m, ws, enrollment.id, err);
          }
        }
        if (verdict === 'campaign') break;
        continue;
      }
      let draft: Draft;
      try {
        draft = await renderStep(input, inbox, appConfig().publicUrl);
      } catch (err) {
        if (!(err instanceof StepRenderError)) throw err;
        return this.pauseForRenderError(m, ws, enrollment.id, err);
      }
      // Each cap is a conditional write; a refusal rolls back the ones taken before it.
      await savepoint(m, 'attempt');
      const verdict = await reserve(
        this.capacity,
        m,
        enrollment,
        campaign.dailyLimit,
        inbox,
        config,
        appConfig().sendMinGapSeconds,
      );
      // No RELEASE: the savepoint ends with the commit, one round trip less while the capacity rows are locked.
      if (verdict === true) return draft;
      await rollbackToSavepoint(m, 'attempt');
      if (verdict === 'campaign') break; // no inbox can help today
      if (verdict instanceof Date) earliest = minDate(earliest, verdict);
    }
    await this.w.enrollments.defer(ws, enrollment.id, earliest, m);
    return 'deferred';
  }

  /**
   * A step that cannot be rendered for this contact: the enrollment is paused with a note naming the
   * step (never retried on its own; resuming after the template or the contact was fixed tries again).
   */
  private async pauseForRenderError(
    m: EntityManager,
    workspaceId: WorkspaceId,
    enrollmentId: number,
    err: StepRenderError,
  ): Promise<Outcome> {
    await this.w.enrollments.pause(workspaceId, enrollmentId, err.message, m);
    logger.warn({ enrollmentId, step: err.position, reason: err.message }, 'send: step not rendered; paused');
    return 'paused';
  }

  /**
   * A claim met a message already recorded for its step. 'record' means: go on and record it anew.
   *
   * `sending` is the trace of a worker that died (or lost its lease) between recording and
   * finalising. Never handed to SMTP (`smtp_started_at` null): nothing can have left, so the row is
   * dropped and the step recorded and sent as usual (the enrollment keeps its thread and inbox).
   * Handed to SMTP: we do not know whether the server got it, so it is never sent again; the row
   * becomes `failed` with `error` "outcome unknown…" and the enrollment is paused with that note.
   */
  private async resolveExisting(
    m: EntityManager,
    d: DueStep,
    position: number,
    existing: { id: number; status: string },
    writes: GroupWrites,
  ): Promise<Outcome | 'record'> {
    const { enrollment } = d;
    const ws = enrollment.workspaceId;
    if (existing.status === 'sending') {
      if (await this.w.messages.dropIfNeverStarted(ws, existing.id, m)) {
        logger.info(
          { enrollmentId: enrollment.id, messageId: existing.id },
          'send: a step recorded but never handed to SMTP is sent again',
        );
        return 'record';
      }
      const what = `was interrupted during its SMTP conversation (message ${existing.id})`;
      await this.failures.inDoubt(m, ws, enrollment.id, existing.id, inDoubtNote(position, what));
      logger.warn({ enrollmentId: enrollment.id, messageId: existing.id }, 'send: interrupted step in doubt');
      return 'failed';
    }
    // `failed` (reviewed and resumed) or `sent`: the step is consumed; move on.
    await this.finaliser.advance(m, [{ enrollment, steps: d.steps, position, at: new Date() }], writes);
    return 'skipped';
  }
}
