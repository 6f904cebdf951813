/**
 * The sending engine: claims due enrollments, records each step before SMTP, sends it, finalises it.
 * The parts live in engine/: recorder.ts (record), render-step.ts, reservations.ts and
 * capacity-bank.ts (capacity), finaliser.ts, failures.ts and smtp-outcome.ts (what an SMTP failure
 * means), send.repository.ts and capacity.repository.ts (every statement).
 *
 * 1. Claim (one statement, autocommit): up to CLAIM_BATCH due enrollments of active campaigns, in
 *    `next_step_at` order over the partial index idx_enrollments_due, `FOR UPDATE SKIP LOCKED`, and
 *    lease them by moving `next_step_at` SEND_LEASE_SECONDS ahead. That new `next_step_at` is the
 *    claim's fencing token: every later write of the tick checks it, so a worker whose lease ran out
 *    touches nothing another worker has claimed since. A worker that dies before recording loses
 *    nothing: the enrollment is due again when the lease ends.
 * 2. Record, committed BEFORE SMTP, in chunks of up to RECORD_BATCH enrollments (one transaction,
 *    one locking read, one insert): schedule window, suppression, capacity, then the message row with
 *    status `sending` (unique per enrollment and step). Without pacing capacity comes from blocks the
 *    tick reserves (capacity-bank.ts); with pacing each send reserves its own (one enrollment per
 *    chunk). No worker can pass a cap. A step whose template fails to render pauses its enrollment.
 * 3. SMTP through the inbox's pooled transport, or the provider's API (mail-senders.ts: one seam). Just before its conversation begins a message gets
 *    `smtp_started_at` (one UPDATE for whatever enters SMTP meanwhile). At most SMTP_CONCURRENCY
 *    messages per process are begun and not yet resolved (finalised or failed); each conversation
 *    has a deadline, and none begins late in a claim, so all of a claim's conversations are over
 *    before its lease ends.
 * 4. Finalise, in groups (one transaction for the sends accepted meanwhile, set-based).
 *
 * At most once: a claim that finds a `sending` row for its step is the trace of a crash. Never handed
 * to SMTP (`smtp_started_at` null): the row is dropped and the step recorded and sent as usual. Begun:
 * the step is never resent; the row becomes `failed` with `error` "outcome unknown…" and the
 * enrollment is paused with that note for review. An SMTP failure is classified by smtp-outcome.ts:
 * not sent (record dropped, retried later), hard bounce, or unknown outcome (handled as a crash in
 * doubt). Resuming an enrollment paused in doubt skips that step.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { logger } from '../../common/logging/logger.js';
import { countSend } from '../../common/metrics/metrics.js';
import { Draining } from '../../common/lifecycle/draining.js';
import { appConfig } from '../../config/app-config.js';
import { MetricCounters } from '../analytics/metrics.js';
import { ContactWritesRepository } from '../contacts/contact-writes.repository.js';
import { EnrollmentEffects } from '../enrollments/enrollment-effects.js';
import { EnrollmentStepsRepository } from '../enrollments/enrollment-steps.repository.js';
import { Reactions } from '../reactions/reactions.js';
import { Outbox } from '../events/outbox.js';
import { OAuthGrantRefused } from '../inboxes/oauth/oauth-client.js';
import { MessageWritesRepository } from '../threads/message-writes.repository.js';
import { CapacityBank } from './engine/capacity-bank.js';
import { InboxStateRepository } from '../inboxes/inbox-state.repository.js';
import { CapacityRepository } from './engine/capacity.repository.js';
import {
  CLAIM_BATCH,
  claimTimes,
  errInfo,
  RECORD_BATCH,
  RETRY_DELAY_SECONDS,
  SEND_CONCURRENCY,
  SMTP_CONCURRENCY,
  SMTP_LANES_PER_CHUNK,
  type Outcome,
  type Prepared,
  type TickContext,
} from './engine/engine.types.js';
import { SendFailures } from './engine/failures.js';
import { Finaliser } from './engine/finaliser.js';
import { StepRecorder } from './engine/recorder.js';
import { SendRepository } from './engine/send.repository.js';
import { Slots, StartMarker } from './engine/slots.js';
import { MailSenders, type ReadySender } from './mail-senders.js';

export { CLAIM_BATCH, claimTimes, RECORD_BATCH, SEND_CONCURRENCY, SMTP_CONCURRENCY, SMTP_LANES_PER_CHUNK };
export { RETRY_DELAY_SECONDS } from './engine/engine.types.js';
export { DUE_ENROLLMENTS_SQL } from '../enrollments/enrollment-steps.repository.js';

/** Most sends finalised in one transaction. */
const FINALISE_GROUP_MAX = 200;
/** How long a group waits for more accepted sends before it starts. */
const FINALISE_GROUP_WAIT_MS = 20;

@Injectable()
export class SendEngine {
  /** Messages begun in SMTP and not resolved yet, across this process's ticks (SMTP_CONCURRENCY). */
  private readonly smtpSlots = new Slots(SMTP_CONCURRENCY);
  private readonly finaliser: Finaliser;
  private readonly failures: SendFailures;
  private readonly recorder: StepRecorder;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly senders: MailSenders,
    private readonly sends: SendRepository,
    private readonly capacity: CapacityRepository,
    private readonly draining: Draining,
    private readonly messages: MessageWritesRepository,
    private readonly enrollments: EnrollmentStepsRepository,
    contacts: ContactWritesRepository,
    effects: EnrollmentEffects,
    outbox: Outbox,
    counters: MetricCounters,
    private readonly inboxes: InboxStateRepository,
    reactions: Reactions,
  ) {
    const writers = { messages, enrollments, contacts, effects, outbox, counters, inboxes, reactions };
    this.finaliser = new Finaliser(sends, writers);
    this.failures = new SendFailures(ds, writers);
    this.recorder = new StepRecorder(sends, capacity, this.finaliser, this.failures, writers);
  }

  /** Claims one batch and works it through. Returns how many enrollments were claimed. */
  async tick(): Promise<number> {
    const leaseSeconds = appConfig().sendLeaseSeconds;
    const claimStart = performance.now();
    const claimed = await this.enrollments.claimDueAcrossWorkspaces(CLAIM_BATCH, leaseSeconds);
    if (claimed.length === 0) return 0;
    const ids = claimed.map((r) => Number(r.id)).sort((a, b) => a - b);
    const times = claimTimes(leaseSeconds);
    const lease = new Date(claimed[0].next_step_at);
    let next = 0;
    // Without pacing, capacity is reserved in blocks for the whole tick and steps are recorded in
    // chunks; with pacing, one enrollment at a time, each reserving its own slot.
    const paced = appConfig().sendMinGapSeconds > 0;
    const chunk = paced ? 1 : Math.max(1, Math.min(RECORD_BATCH, Math.ceil(ids.length / this.concurrency())));
    const bank = paced
      ? null
      : new CapacityBank(this.ds, this.capacity, this.inboxes, () => Math.max(1, ids.length - next + chunk));
    const finalising = this.groupFinaliser();
    const ctx: TickContext = {
      bank,
      finalise: finalising.add,
      lease,
      startBy: claimStart + times.startWithinMs,
      deadlineMs: times.deadlineMs,
      marker: new StartMarker(this.messages, lease),
    };
    const worker = async (): Promise<void> => {
      while (next < ids.length) {
        if (performance.now() > ctx.startBy || this.draining.active) {
          // Too late in the claim to begin more conversations, or the process is shutting down:
          // the rest is due again at once (for another worker, with no lease left to run out).
          const rest = ids.slice(next);
          next = ids.length;
          await this.release(rest, lease);
          return;
        }
        const part = ids.slice(next, next + chunk);
        next += part.length;
        const recorded = await this.recordChunk(part, ctx);
        // A chunk's SMTP conversations overlap (they hold no database connection).
        let i = 0;
        const lane = async (): Promise<void> => {
          while (i < recorded.length) {
            const p = recorded[i++];
            try {
              countSend(await this.send(p, ctx), p.workspaceId);
            } catch (err) {
              countSend('error', p.workspaceId);
              logger.error(
                { err: errInfo(err), enrollmentId: p.enrollmentId },
                'send: failed after recording',
              );
            }
          }
        };
        await Promise.all(Array.from({ length: Math.min(SMTP_LANES_PER_CHUNK, recorded.length) }, lane));
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(this.concurrency(), ids.length) }, worker));
    } finally {
      await finalising.drain();
      if (bank) {
        await bank.release().catch((err: unknown) => {
          logger.error({ err: errInfo(err) }, 'send: unused capacity not given back (lost for today)');
        });
      }
    }
    return ids.length;
  }

  /** Records a chunk in one transaction; if that fails, each enrollment on its own. */
  private async recordChunk(part: number[], ctx: TickContext): Promise<Prepared[]> {
    try {
      return await this.ds.transaction((m) => this.recorder.record(m, part, ctx));
    } catch (err) {
      if (part.length === 1) {
        logger.error(
          { err: errInfo(err), enrollmentId: part[0] },
          'send: enrollment failed; retried after the lease',
        );
        return [];
      }
      logger.warn({ err: errInfo(err) }, 'send: chunk record failed; one by one');
    }
    const recorded: Prepared[] = [];
    for (const id of part) recorded.push(...(await this.recordChunk([id], ctx)));
    return recorded;
  }

  /**
   * Sent messages are finalised in groups: whatever was accepted while the previous group committed.
   * A short wait lets a group collect the sends accepted meanwhile; it ends early when a send waits
   * for an SMTP slot (the slots of the sends still to be finalised are what it waits for).
   */
  private groupFinaliser(): { add: TickContext['finalise']; drain: () => Promise<void> } {
    const pending: Array<{ p: Prepared; done: () => void }> = [];
    let flushing: Promise<void> | undefined;
    let startGroup: (() => void) | undefined;
    this.smtpSlots.onWait = () => startGroup?.();
    const flush = async (): Promise<void> => {
      while (pending.length > 0) {
        const group = pending.splice(0, FINALISE_GROUP_MAX);
        try {
          await this.finaliseGroup(group.map((x) => x.p));
        } finally {
          for (const x of group) x.done();
        }
      }
    };
    return {
      add: (p, done) => {
        pending.push({ p, done });
        flushing ??= new Promise<void>((r) => {
          const timer = setTimeout(r, FINALISE_GROUP_WAIT_MS);
          startGroup = () => {
            clearTimeout(timer);
            r();
          };
        })
          .then(() => {
            startGroup = undefined;
            return flush();
          })
          .finally(() => {
            flushing = undefined;
          });
      },
      drain: async () => {
        while (flushing) await flushing;
      },
    };
  }

  /** Gives claimed enrollments back (due at once) while the claim's token is still theirs. */
  private async release(ids: number[], lease: Date): Promise<void> {
    if (ids.length === 0) return;
    await this.enrollments.releaseClaimsAcrossWorkspaces(ids, lease).catch((err: unknown) => {
      logger.warn({ err: errInfo(err) }, 'send: claims not released early (due when the lease ends)');
    });
  }

  /**
   * Chunks worked at once. A record transaction may wait for a block reservation on a second
   * connection (capacity-bank.ts), so two connections per chunk plus one for the group finaliser must
   * fit in the pool, or the workers could hold every connection while waiting for one.
   */
  private concurrency(): number {
    const poolMax = Number((this.ds.options as { extra?: { max?: number } }).extra?.max ?? 10);
    return Math.max(1, Math.min(SEND_CONCURRENCY, Math.floor((poolMax - 1) / 2)));
  }

  /**
   * SMTP for a recorded (committed) step, then its finalisation (handed to the tick's group
   * finaliser) or the failure's handling. Holds one of the process's SMTP slots from just before the
   * conversation begins until the send is resolved.
   */
  private async send(prepared: Prepared, ctx: TickContext): Promise<Outcome> {
    await this.smtpSlots.acquire();
    let held = true;
    const done = (): void => {
      if (held) this.smtpSlots.release();
      held = false;
    };
    try {
      if (performance.now() > ctx.startBy || this.draining.active) {
        // Too late in the claim, or shutting down: nothing was handed to SMTP, so the record goes and
        // the step is due again at once. A conversation already begun is finished and finalised.
        await this.ds.transaction((m) => this.failures.dropRecord(m, prepared, 0));
        return 'deferred';
      }
      // The one transport seam (mail-senders.ts): SMTP, Gmail API or Graph, chosen by the inbox.
      let sender: ReadySender;
      try {
        sender = await this.senders.ready(prepared.inbox);
      } catch (err) {
        return await this.signInFailed(prepared, err);
      }
      if (!(await ctx.marker.mark(prepared.messageRowId))) {
        logger.warn(
          { messageId: prepared.messageRowId, enrollmentId: prepared.enrollmentId },
          'send: the record was taken over or resolved before SMTP; not sent',
        );
        return 'skipped';
      }
      let messageId: string;
      try {
        ({ messageId } = await sender.send(prepared.mail, ctx.deadlineMs));
      } catch (err) {
        return await this.failures.failed(prepared, err);
      }
      if (messageId !== prepared.mail.messageId) {
        // The provider stored a Message-ID of its own: replies will quote that one, so it is kept.
        await this.messages
          .replaceMessageId(prepared.workspaceId, prepared.messageRowId, messageId)
          .then(() => (prepared.mail.messageId = messageId))
          .catch((err: unknown) =>
            logger.error(
              { err: errInfo(err), messageId: prepared.messageRowId },
              "send: the provider's Message-ID not stored",
            ),
          );
      }
      held = false; // from here the finaliser releases the slot
      ctx.finalise(prepared, () => this.smtpSlots.release());
      return 'sent';
    } finally {
      done();
    }
  }

  /**
   * Finalises sends in one transaction. If the group fails, each send is finalised on its own (a
   * group of one).
   */
  private async finaliseGroup(group: Prepared[]): Promise<void> {
    const ordered = [...group].sort((a, b) => a.enrollmentId - b.enrollmentId);
    try {
      await this.ds.transaction((m) => this.finaliser.finalise(m, ordered));
      return;
    } catch (err) {
      if (ordered.length === 1) {
        logger.error(
          { err: errInfo(err), messageId: ordered[0].messageRowId },
          'send: finalisation failed; the step stays recorded as sending and will not be resent',
        );
        return;
      }
      logger.warn({ err: errInfo(err), size: group.length }, 'send: group finalisation failed; one by one');
    }
    for (const p of ordered) await this.finaliseGroup([p]);
  }

  /**
   * An OAuth inbox without a usable access token: nothing was handed to SMTP, so the record goes.
   * A refused grant (the inbox is now `reauth_required`) makes the step due at once, when rotation
   * picks another of the campaign's inboxes; an unavailable token endpoint retries later.
   */
  private async signInFailed(prepared: Prepared, err: unknown): Promise<Outcome> {
    const refused = err instanceof OAuthGrantRefused;
    await this.ds.transaction((m) =>
      this.failures.dropRecord(m, prepared, refused ? 0 : RETRY_DELAY_SECONDS),
    );
    logger.warn(
      { inboxId: prepared.inbox.id, enrollmentId: prepared.enrollmentId, reason: errInfo(err) },
      refused
        ? 'send: inbox needs a new OAuth grant; not sent'
        : 'send: no OAuth access token; retried later',
    );
    return 'deferred';
  }
}
