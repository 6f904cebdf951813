/**
 * Finalising accepted sends, set-based: one transaction for a group (a single send is a group of one),
 * a fixed number of statements whatever its size: messages `sent`, thread counters, contacts
 * `new`→`contacted`, enrollments advanced or completed, their events, and one increment per metric
 * row. Each send's effects commit together with its `sent` status.
 */
import type { EntityManager } from 'typeorm';
import { logger } from '../../../common/logging/logger.js';
import type { MetricCounters, MetricName, StepMetricBump } from '../../analytics/metrics.js';
import type { Enrollment } from '../../enrollments/entities/enrollment.entity.js';
import { toEnrollmentView } from '../../enrollments/enrollment.view.js';
import type { NewEvent, Outbox } from '../../events/outbox.js';
import type { SequenceStep } from '../../sequences/entities/sequence.entity.js';
import { Message } from '../../threads/entities/message.entity.js';
import { toMessageEventView } from '../../threads/message.view.js';
import type { EngineWriters, Prepared } from './engine.types.js';
import type { SendRepository } from './send.repository.js';
import type { WorkspaceId } from '../../../common/tenant/workspace-id.js';

/**
 * Events and metric increments of a transaction, written at its end: one outbox insert and one
 * increment per metric row (in a fixed order, so two workers' groups cannot deadlock).
 */
export class GroupWrites {
  readonly events: NewEvent[] = [];
  private readonly metrics = new Map<
    string,
    { workspaceId: WorkspaceId; campaignId: number; metric: MetricName; by: number; at: Date }
  >();

  private readonly stepMetrics: StepMetricBump[] = [];

  constructor(
    private readonly outbox: Outbox,
    private readonly counters: MetricCounters,
  ) {}

  /** One `sent` for a send's subsequence, step and variant (`step_metrics`, written with the daily counters). */
  stepSent(p: Prepared, at: Date): void {
    const { workspaceId, campaignId, subsequenceId, stepPosition, variant } = p;
    this.stepMetrics.push({
      workspaceId,
      campaignId,
      subsequenceId,
      stepPosition,
      variant,
      metric: 'sent',
      by: 1,
      at,
    });
  }

  metric(workspaceId: WorkspaceId, campaignId: number, metric: MetricName, at: Date): void {
    const key = `${workspaceId}|${campaignId}|${at.toISOString().slice(0, 10)}|${metric}`;
    const cur = this.metrics.get(key);
    if (cur) cur.by += 1;
    else this.metrics.set(key, { workspaceId, campaignId, metric, by: 1, at });
  }

  async flush(m: EntityManager): Promise<void> {
    await this.outbox.recordMany(m, this.events);
    // Counter rows are shared by every send of the day: each table in a fixed order, step rows first.
    if (this.stepMetrics.length > 0) await this.counters.bumpSteps(m, this.stepMetrics);
    for (const key of [...this.metrics.keys()].sort()) {
      const x = this.metrics.get(key)!;
      await this.counters.bump(m, x.workspaceId, x.campaignId, x.metric, x.by, x.at);
    }
  }
}

/** An enrollment whose step `position` is done. */
export interface StepDone {
  enrollment: Pick<Enrollment, 'id' | 'status' | 'currentStep'>;
  steps: SequenceStep[];
  position: number;
  at: Date;
}

export class Finaliser {
  constructor(
    private readonly sends: SendRepository,
    private readonly w: EngineWriters,
  ) {}

  /** The events and counters of one transaction, written by its `flush`. */
  newGroup(): GroupWrites {
    return new GroupWrites(this.w.outbox, this.w.counters);
  }

  /** Marks the group's messages `sent` with all their effects (`group` in enrollment order). */
  async finalise(m: EntityManager, group: Prepared[]): Promise<void> {
    const now = new Date();
    const updated = await this.w.messages.markSentAcrossWorkspaces(
      group.map((p) => p.messageRowId),
      now,
      m,
    );
    const createdAt = new Map(updated.map((r) => [Number(r.id), new Date(r.created_at)]));
    for (const p of group.filter((x) => !createdAt.has(x.messageRowId))) {
      logger.warn({ messageId: p.messageRowId }, 'send: finalise found the message already resolved');
    }
    const sent = group.filter((p) => createdAt.has(p.messageRowId));
    if (sent.length === 0) return;
    await this.w.messages.countThreadMessagesAcrossWorkspaces(
      sent.map((p) => p.threadId),
      now,
      m,
    );
    await this.w.contacts.markContactedAcrossWorkspaces(
      sent.map((p) => ({ workspaceId: p.workspaceId, id: p.contactId })),
      m,
    );
    const writes = this.newGroup();
    for (const p of sent) {
      writes.events.push({
        workspaceId: p.workspaceId,
        type: 'message.sent',
        data: {
          message: toMessageEventView(sentMessage(p, now, createdAt.get(p.messageRowId)!)),
          enrollment_id: p.enrollmentId,
          campaign_id: p.campaignId,
          contact_id: p.contactId,
          step_position: p.stepPosition,
          variant: p.variant,
        },
      });
    }
    const enrollments = await this.sends.findEnrollmentsAcrossWorkspaces(
      sent.map((p) => p.enrollmentId),
      m,
      true,
    );
    const byId = new Map(enrollments.map((e) => [e.id, e]));
    const stepsOf = await this.sends.stepsOfEnrollmentsAcrossWorkspaces(
      [...new Set(sent.map((p) => p.enrollmentId))],
      m,
    );
    const done: StepDone[] = [];
    for (const p of sent) {
      const enrollment = byId.get(p.enrollmentId);
      if (enrollment)
        done.push({
          enrollment,
          steps: stepsOf.get(p.enrollmentId) ?? [],
          position: p.stepPosition,
          at: now,
        });
    }
    await this.advance(m, done, writes);
    // Last: the campaign's daily_metrics row is shared by every send of the day.
    for (const p of sent) {
      writes.metric(p.workspaceId, p.campaignId, 'sent', now);
      writes.stepSent(p, now);
    }
    await writes.flush(m);
  }

  /**
   * Marks steps as done: `current_step` moves on and `next_step_at` follows the next step's delay;
   * after the last step an active enrollment completes. Paused or stopped enrollments keep their
   * status (a paused one continues from the right step on resume).
   */
  async advance(m: EntityManager, items: StepDone[], writes: GroupWrites): Promise<void> {
    const completing: Array<{ id: number; step: number }> = [];
    const moving: Array<{ id: number; step: number; due: Date | null }> = [];
    for (const { enrollment: e, steps, position, at } of items) {
      const index = steps.findIndex((s) => s.position === position);
      const nextStep = steps[index + 1];
      const step = Math.max(e.currentStep, index + 1);
      if (!nextStep && e.status === 'active') completing.push({ id: e.id, step });
      else if (!nextStep) moving.push({ id: e.id, step, due: null });
      else {
        const due = e.status === 'stopped' ? null : new Date(at.getTime() + nextStep.delay_minutes * 60_000);
        moving.push({ id: e.id, step, due });
      }
    }
    if (moving.length > 0) await this.w.enrollments.moveEnrollmentsAcrossWorkspaces(moving, m);
    await this.complete(m, completing, writes);
  }

  /** Completes active enrollments at `step`, with `enrollment.completed` and the `completed` metric. */
  async complete(
    m: EntityManager,
    completing: Array<{ id: number; step: number }>,
    writes: GroupWrites,
  ): Promise<void> {
    if (completing.length === 0) return;
    const completed = await this.w.enrollments.completeEnrollmentsAcrossWorkspaces(completing, m);
    if (completed.length === 0) return;
    const now = new Date();
    for (const e of await this.sends.findEnrollmentsAcrossWorkspaces(completed, m)) {
      writes.events.push({
        workspaceId: e.workspaceId,
        type: 'enrollment.completed',
        data: { enrollment: toEnrollmentView(e) },
      });
      writes.metric(e.workspaceId, e.campaignId, 'completed', now);
      // A `completed` subsequence moves the contact on, in this transaction.
      await this.w.reactions.afterCompleted(m, e);
    }
  }
}

/** The message row as just written (recorded from `p`, finalised now). */
function sentMessage(p: Prepared, sentAt: Date, createdAt: Date): Message {
  return Object.assign(new Message(), {
    id: p.messageRowId,
    workspaceId: p.workspaceId,
    threadId: p.threadId,
    enrollmentId: p.enrollmentId,
    direction: 'outbound' as const,
    kind: 'email' as const,
    fromAddress: p.inbox.email,
    toAddress: p.mail.to,
    subject: p.mail.subject,
    body: p.mail.text,
    bodyPurgedAt: null,
    messageId: p.mail.messageId,
    inReplyTo: p.mail.inReplyTo ?? null,
    status: 'sent' as const,
    sentAt,
    receivedAt: null,
    stepPosition: p.stepPosition,
    variant: p.variant,
    bouncedAt: null,
    error: null,
    smtpStartedAt: null,
    idempotencyKey: null,
    createdAt,
  });
}
