/**
 * The sending engine: claims due enrollments, records each step before SMTP, sends it, finalises it.
 *
 * 1. Claim (one statement, autocommit): up to CLAIM_BATCH due enrollments of active campaigns, in
 *    `next_step_at` order over the partial index idx_enrollments_due, `FOR UPDATE SKIP LOCKED`, and
 *    lease them by moving `next_step_at` SEND_LEASE_SECONDS ahead. That new `next_step_at` is the
 *    claim's fencing token: every later write of the tick checks it, so a worker whose lease ran out
 *    touches nothing another worker has claimed since. A worker that dies before recording loses
 *    nothing: the enrollment is due again when the lease ends.
 * 2. Record, committed BEFORE SMTP: schedule window, suppression, capacity, then the message row
 *    with status `sending` (unique per enrollment and step). Without pacing (gap 0) capacity comes
 *    from blocks the tick reserves with conditional writes cut to what is left below each cap
 *    (capacity.ts), and plain steps are recorded in chunks of RECORD_BATCH, one transaction per chunk
 *    (recordMany); every other case, and every send when pacing is on, goes through `record`, one
 *    transaction per enrollment with a conditional write per cap. Either way no worker can pass a cap.
 *    A step whose template fails to render pauses its enrollment with a note naming the step.
 * 3. SMTP through the inbox's pooled transport. Just before its conversation begins a message gets
 *    `smtp_started_at` (one UPDATE for whatever enters SMTP meanwhile). At most SMTP_CONCURRENCY
 *    messages per process are begun and not yet resolved (finalised or failed); each conversation
 *    has a deadline, and none begins late in a claim, so all of a claim's conversations are over
 *    before its lease ends.
 * 4. Finalise, in groups (one transaction for the sends accepted meanwhile, set-based): message
 *    `sent`, thread counters, enrollment advanced or completed, contact `new`→`contacted`, events, and
 *    one increment per metric row. Each send's effects commit together with its `sent` status.
 *
 * At most once (CONTRACT §12): a claim that finds a `sending` row for its step is the trace of a
 * crash. Never handed to SMTP (`smtp_started_at` null): the row is dropped and the step recorded and
 * sent as usual. Begun: the step is never resent; the row becomes `failed` with `error` "outcome
 * unknown…" and the enrollment is paused with that note for review. An SMTP failure is classified
 * by smtp-outcome.ts: not sent (record dropped, retried later), hard bounce, or unknown outcome
 * (handled as a crash in doubt). Resuming an enrollment paused in doubt skips that step. */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Transporter } from 'nodemailer';
import { In, type DataSource, type EntityManager } from 'typeorm';
import { logger } from '../../common/logging/logger.js';
import { appConfig } from '../../config/app-config.js';
import { bumpMetric, type MetricName } from '../analytics/metrics.js';
import type { Campaign } from '../campaigns/entities/campaign.entity.js';
import { Enrollment } from '../enrollments/entities/enrollment.entity.js';
import { toEnrollmentView } from '../enrollments/enrollments.service.js';
import { recordEvent, recordEvents, type NewEvent } from '../events/outbox.js';
import { Inbox } from '../inboxes/entities/inbox.entity.js';
import { openSettings } from '../inboxes/inbox-credentials.js';
import type { SequenceStep } from '../sequences/entities/sequence.entity.js';
import { templateVars } from '../sequences/templates.js';
import { Message } from '../threads/entities/message.entity.js';
import { effectiveConfig, type WorkspaceConfig } from '../workspaces/workspace-config.js';
import { CapacityBank } from './capacity.js';
import {
  composeStep,
  newMessageId,
  StepRenderError,
  unsubscribeHeaders,
  unsubscribeUrl,
  withFooter,
} from './compose.js';
import {
  recordHardBounce,
  stopEnrollment,
  stopReasonForSuppression,
} from '../enrollments/enrollment-effects.js';
import { toMessageEventView } from '../threads/message.view.js';
import { nextWindowOpening } from './send-window.js';
import { classifySmtpFailure, type SmtpError } from './smtp-outcome.js';
import {
  SMTP_SEND_DEADLINE_MS,
  SmtpSendError,
  SmtpTransportPool,
  sendWithin,
} from './smtp-transport.pool.js';
import { rows } from '../../database/query-rows.js';
import { UTC_TODAY } from './sql.js';
import { signUnsubscribeToken } from '../unsubscribe/unsubscribe-token.js';

/** Enrollments claimed per tick and process. */
export const CLAIM_BATCH = 400;
/** Most enrollments recorded in one transaction. */
export const RECORD_BATCH = 25;
/** SMTP conversations in flight per chunk of recorded steps (so up to SEND_CONCURRENCY × this). */
export const SMTP_LANES_PER_CHUNK = 3;
/** Chunks worked at once per process (each holds at most two database connections). */
export const SEND_CONCURRENCY = 8;
/**
 * Messages per process whose SMTP conversation has begun and that are not resolved yet (finalised
 * or failed): what a SIGKILL can leave in doubt. CONTRACT §12 caps it at 32.
 */
export const SMTP_CONCURRENCY = SEND_CONCURRENCY * SMTP_LANES_PER_CHUNK;
if (SMTP_CONCURRENCY > 32) throw new Error('SMTP_CONCURRENCY must stay at most 32 (CONTRACT §12)');
/** Retry delay after a send that the server refused for now (4xx, connection failure). */
export const RETRY_DELAY_SECONDS = 300;

/**
 * The time limits of one claim, from SEND_LEASE_SECONDS (L): one SMTP conversation may take
 * min(120 s, L/3) (`deadlineMs`), and a conversation begins only while at least that plus a tenth of
 * the lease is left (`startWithinMs`), so none outlives the lease. Default L = 600 s: deadline 120 s,
 * conversations begin within the first 420 s of a claim.
 */
export function claimTimes(leaseSeconds: number): { deadlineMs: number; startWithinMs: number } {
  const lease = leaseSeconds * 1000;
  const deadlineMs = Math.min(SMTP_SEND_DEADLINE_MS, Math.floor(lease / 3));
  return { deadlineMs, startWithinMs: lease - deadlineMs - Math.floor(lease / 10) };
}

/** The SQL that finds due enrollments (also EXPLAINed by bench/sending.mjs). */
export const DUE_ENROLLMENTS_SQL = `
  SELECT e.id FROM enrollments e
  WHERE e.status = 'active' AND e.next_step_at <= now()
    AND EXISTS (SELECT 1 FROM campaigns c WHERE c.id = e.campaign_id AND c.status = 'active')
  ORDER BY e.next_step_at, e.id
  LIMIT $1
  FOR UPDATE OF e SKIP LOCKED`;

const CLAIM_SQL = `
  WITH due AS (${DUE_ENROLLMENTS_SQL})
  UPDATE enrollments e SET next_step_at = now() + make_interval(secs => $2::double precision)
  FROM due WHERE e.id = due.id
  RETURNING e.id, e.next_step_at`;

interface Prepared {
  messageRowId: number;
  workspaceId: string;
  enrollmentId: number;
  campaignId: number;
  contactId: number;
  stepPosition: number;
  threadId: number;
  /** The enrollment's inbox before this send (null before its first), restored if nothing was sent. */
  previousInboxId: string | null;
  inbox: Inbox;
  mail: {
    from: { name: string; address: string };
    to: string;
    subject: string;
    text: string;
    messageId: string;
    inReplyTo?: string;
    references?: string[];
    headers: Record<string, string>;
  };
}

/** The enrollment columns the engine works with (read with its row lock). */
type Claimed = Pick<
  Enrollment,
  'id' | 'workspaceId' | 'campaignId' | 'contactId' | 'status' | 'currentStep' | 'inboxId'
>;

/** The engine's enrollment from a raw `enrollments` row (snake_case, as pg returns it). */
function claimedFromRow(r: Record<string, unknown>): Claimed {
  return {
    id: Number(r.id),
    workspaceId: r.workspace_id as string,
    campaignId: Number(r.campaign_id),
    contactId: Number(r.contact_id),
    status: r.status as Enrollment['status'],
    currentStep: Number(r.current_step),
    inboxId: (r.inbox_id as string | null) ?? null,
  };
}

/** What rendering a step needs besides the inbox it goes out from. */
interface StepInput {
  enrollment: Claimed;
  step: SequenceStep;
  contact: Record<string, unknown>;
  config: WorkspaceConfig;
  /** The enrollment's thread, once its first step was recorded. */
  thread: { id: number; subject: string } | undefined;
  /** Message-IDs of the steps already sent (for In-Reply-To/References). */
  previous: Array<{ message_id: string }>;
}

/** `thread` and `previous` of a StepInput from the enrollment's messages and thread as queried. */
function sentSoFar(
  outbound: Array<{ status: string; message_id: string | null }>,
  thread: unknown,
): Pick<StepInput, 'thread' | 'previous'> {
  return {
    thread: (thread as { id: number; subject: string } | null) ?? undefined,
    previous: outbound.filter((x) => x.status === 'sent').map((x) => ({ message_id: x.message_id ?? '' })),
  };
}

type Outcome = 'sent' | 'deferred' | 'stopped' | 'paused' | 'bounced' | 'failed' | 'skipped';

/** What one tick shares between its sends. */
interface TickContext {
  /** Null when pacing (SEND_MIN_GAP_SECONDS > 0) needs a reservation per send. */
  bank: CapacityBank | null;
  /** Hands an accepted send to the group finaliser; `done` runs once it is resolved. */
  finalise: (p: Prepared, done: () => void) => void;
  /** The claim's fencing token: the `next_step_at` it wrote. */
  lease: Date;
  /** performance.now() after which no SMTP conversation of this claim begins. */
  startBy: number;
  /** Deadline of one SMTP conversation (ms). */
  deadlineMs: number;
  marker: StartMarker;
}

/** A counting semaphore (FIFO). `onWait` runs when a caller has to wait. */
class Slots {
  private readonly waiting: Array<() => void> = [];
  onWait: (() => void) | undefined;
  constructor(private free: number) {}

  async acquire(): Promise<void> {
    if (this.free > 0) {
      this.free -= 1;
      return;
    }
    const waited = new Promise<void>((resolve) => this.waiting.push(resolve));
    this.onWait?.();
    await waited;
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free += 1;
  }
}

/**
 * Sets `smtp_started_at` on messages about to enter SMTP: one UPDATE for all the requests that
 * arrive while the previous one runs. Only rows still `sending`, not begun, and whose enrollment
 * still carries this claim's token are marked; a message not marked must not be sent.
 */
class StartMarker {
  private queue: Array<{ id: number; resolve: (ok: boolean) => void; reject: (err: unknown) => void }> = [];
  private running = false;

  constructor(
    private readonly ds: DataSource,
    private readonly lease: Date,
  ) {}

  mark(id: number): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.queue.push({ id, resolve, reject });
      if (!this.running) void this.run();
    });
  }

  private async run(): Promise<void> {
    this.running = true;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0);
      try {
        const marked = await rows<{ id: number }>(
          this.ds.manager,
          `UPDATE messages m SET smtp_started_at = now()
           FROM enrollments e
           WHERE m.id = ANY($1::int[]) AND m.status = 'sending' AND m.smtp_started_at IS NULL
             AND e.id = m.enrollment_id AND e.next_step_at = $2
           RETURNING m.id`,
          [batch.map((b) => b.id), this.lease],
        );
        const ok = new Set(marked.map((r) => Number(r.id)));
        for (const b of batch) b.resolve(ok.has(b.id));
      } catch (err) {
        for (const b of batch) b.reject(err);
      }
    }
    this.running = false;
  }
}

/**
 * Events and metric increments of a group finalisation, written at its end: one outbox insert and
 * one increment per metric row (in a fixed order, so two workers' groups cannot deadlock).
 */
class GroupWrites {
  readonly events: NewEvent[] = [];
  private readonly metrics = new Map<
    string,
    { workspaceId: string; campaignId: number; metric: MetricName; by: number; at: Date }
  >();

  metric(workspaceId: string, campaignId: number, metric: MetricName, at: Date): void {
    const key = `${workspaceId}|${campaignId}|${at.toISOString().slice(0, 10)}|${metric}`;
    const cur = this.metrics.get(key);
    if (cur) cur.by += 1;
    else this.metrics.set(key, { workspaceId, campaignId, metric, by: 1, at });
  }

  async flush(m: EntityManager): Promise<void> {
    await recordEvents(m, this.events);
    for (const key of [...this.metrics.keys()].sort()) {
      const x = this.metrics.get(key)!;
      await bumpMetric(m, x.workspaceId, x.campaignId, x.metric, x.by, x.at);
    }
  }
}

/** Most sends finalised in one transaction. */
const FINALISE_GROUP_MAX = 200;
/** How long a group waits for more accepted sends before it starts. */
const FINALISE_GROUP_WAIT_MS = 20;

const startOfNextUtcDay = (now: Date): Date =>
  new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));

@Injectable()
export class SendEngine {
  /** Messages begun in SMTP and not resolved yet, across this process's ticks (SMTP_CONCURRENCY). */
  private readonly smtpSlots = new Slots(SMTP_CONCURRENCY);

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly transports: SmtpTransportPool,
  ) {}

  /** Claims one batch and works it through. Returns how many enrollments were claimed. */
  async tick(): Promise<number> {
    const leaseSeconds = appConfig().sendLeaseSeconds;
    const claimStart = performance.now();
    const claimed = await rows<{ id: number; next_step_at: Date }>(this.ds.manager, CLAIM_SQL, [
      CLAIM_BATCH,
      leaseSeconds,
    ]);
    if (claimed.length === 0) return 0;
    const ids = claimed.map((r) => Number(r.id)).sort((a, b) => a - b);
    const times = claimTimes(leaseSeconds);
    const lease = new Date(claimed[0].next_step_at);
    let next = 0;
    // Without pacing, capacity is reserved in blocks for the whole tick (capacity.ts).
    // Plain steps are recorded in chunks, one transaction each (recordMany); the rest one by one.
    const chunk = Math.max(1, Math.min(RECORD_BATCH, Math.ceil(ids.length / this.concurrency())));
    const bank =
      appConfig().sendMinGapSeconds > 0
        ? null
        : new CapacityBank(this.ds, () => Math.max(1, ids.length - next + chunk));
    // Sent messages are finalised in groups: whatever was accepted while the previous group committed.
    const pending: Array<{ p: Prepared; done: () => void }> = [];
    let flushing: Promise<void> | undefined;
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
    // A short wait lets a group collect the sends accepted meanwhile; it ends early when a send
    // waits for an SMTP slot (the slots of the sends still to be finalised are what it waits for).
    let startGroup: (() => void) | undefined;
    this.smtpSlots.onWait = () => startGroup?.();
    const ctx: TickContext = {
      bank,
      finalise: (p, done) => {
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
      lease,
      startBy: claimStart + times.startWithinMs,
      deadlineMs: times.deadlineMs,
      marker: new StartMarker(this.ds, lease),
    };
    const worker = async (): Promise<void> => {
      while (next < ids.length) {
        if (performance.now() > ctx.startBy) {
          // Too late in the claim to begin more conversations: the rest is due again at once.
          const rest = ids.slice(next);
          next = ids.length;
          await this.release(rest, lease);
          return;
        }
        const part = ids.slice(next, next + chunk);
        next += part.length;
        let recorded: Prepared[] = [];
        let others = part;
        if (bank && part.length > 1) {
          try {
            ({ recorded, others } = await this.ds.transaction((m) => this.recordMany(m, part, bank, lease)));
          } catch (err) {
            logger.warn({ err: errInfo(err) }, 'send: chunk record failed; one by one');
            recorded = [];
            others = part;
          }
        }
        // A chunk's SMTP conversations overlap (they hold no database connection).
        let i = 0;
        const lane = async (): Promise<void> => {
          while (i < recorded.length) {
            const p = recorded[i++];
            try {
              await this.send(p, ctx);
            } catch (err) {
              logger.error(
                { err: errInfo(err), enrollmentId: p.enrollmentId },
                'send: failed after recording',
              );
            }
          }
        };
        await Promise.all(Array.from({ length: Math.min(SMTP_LANES_PER_CHUNK, recorded.length) }, lane));
        for (const id of others) {
          try {
            await this.process(id, ctx);
          } catch (err) {
            logger.error(
              { err: errInfo(err), enrollmentId: id },
              'send: enrollment failed; retried after the lease',
            );
          }
        }
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(this.concurrency(), ids.length) }, worker));
    } finally {
      while (flushing) await flushing;
      if (bank) {
        await bank.release().catch((err: unknown) => {
          logger.error({ err: errInfo(err) }, 'send: unused capacity not given back (lost for today)');
        });
      }
    }
    return ids.length;
  }

  /** Gives claimed enrollments back (due at once) while the claim's token is still theirs. */
  private async release(ids: number[], lease: Date): Promise<void> {
    if (ids.length === 0) return;
    await this.ds
      .query(
        `UPDATE enrollments SET next_step_at = now() WHERE id = ANY($1::int[]) AND next_step_at = $2 AND status = 'active'`,
        [ids, lease],
      )
      .catch((err: unknown) => {
        logger.warn({ err: errInfo(err) }, 'send: claims not released early (due when the lease ends)');
      });
  }

  /**
   * Chunks worked at once. A record transaction may wait for a block reservation on a second
   * connection (capacity.ts), so two connections per chunk plus one for the group finaliser must fit
   * in the pool, or the workers could hold every connection while waiting for one.
   */
  private concurrency(): number {
    const poolMax = Number((this.ds.options as { extra?: { max?: number } }).extra?.max ?? 10);
    return Math.max(1, Math.min(SEND_CONCURRENCY, Math.floor((poolMax - 1) / 2)));
  }

  /** Record → SMTP → finalise for one claimed enrollment ('sent' means "accepted by the server"). */
  async process(enrollmentId: number, ctx: TickContext): Promise<Outcome> {
    const prepared = await this.ds.transaction((m) => this.record(m, enrollmentId, ctx.bank, ctx.lease));
    if (typeof prepared === 'string') return prepared;
    return this.send(prepared, ctx);
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
      if (performance.now() > ctx.startBy) {
        // Too late in the claim: nothing was handed to SMTP, so the record goes and the step is due again.
        await this.ds.transaction((m) => this.dropRecord(m, prepared, 0));
        return 'deferred';
      }
      if (!(await ctx.marker.mark(prepared.messageRowId))) {
        logger.warn(
          { messageId: prepared.messageRowId, enrollmentId: prepared.enrollmentId },
          'send: the record was taken over or resolved before SMTP; not sent',
        );
        return 'skipped';
      }
      let info: { accepted?: unknown[]; rejected?: unknown[] };
      try {
        ({ info } = await sendWithin(this.transportFor(prepared.inbox), prepared.mail, ctx.deadlineMs));
      } catch (err) {
        return await this.failed(prepared, err);
      }
      if (Array.isArray(info.rejected) && info.rejected.length > 0 && (info.accepted ?? []).length === 0) {
        const refused: SmtpError = {
          code: 'EENVELOPE',
          command: 'RCPT TO',
          responseCode: 550,
          message: 'recipient rejected',
        };
        return await this.failed(prepared, refused);
      }
      held = false; // from here the finaliser releases the slot
      ctx.finalise(prepared, () => this.smtpSlots.release());
      return 'sent';
    } finally {
      done();
    }
  }

  /**
   * Finalises sends in one transaction (each send's effects, events and metrics commit together with
   * its `sent` status). If the group fails, each send is finalised on its own.
   */
  private async finaliseGroup(group: Prepared[]): Promise<void> {
    const ordered = [...group].sort((a, b) => a.enrollmentId - b.enrollmentId);
    try {
      await this.ds.transaction((m) => this.finaliseMany(m, ordered));
      return;
    } catch (err) {
      logger.warn({ err: errInfo(err), size: group.length }, 'send: group finalisation failed; one by one');
    }
    for (const p of ordered) {
      try {
        await this.ds.transaction((m) => this.finalise(m, p));
      } catch (err) {
        logger.error(
          { err: errInfo(err), messageId: p.messageRowId },
          'send: finalisation failed; the step stays recorded as sending and will not be resent',
        );
      }
    }
  }

  private transportFor(inbox: Inbox): Transporter {
    return this.transports.get(inbox.id, inbox.smtpSealed, () =>
      openSettings(inbox.smtpSealed, inbox.id, 'smtp'),
    );
  }

  // ---------------------------------------------------------------------------------------------
  // Record

  private async record(
    m: EntityManager,
    enrollmentId: number,
    bank: CapacityBank | null,
    lease: Date,
  ): Promise<Prepared | Outcome> {
    const [locked] = await rows<Record<string, unknown>>(
      m,
      `SELECT id, workspace_id, campaign_id, contact_id, status, current_step, inbox_id, next_step_at
       FROM enrollments WHERE id = $1 FOR UPDATE`,
      [enrollmentId],
    );
    if (!locked || locked.status !== 'active') return 'skipped';
    // Deferred, resolved or claimed again by another worker since this claim: not ours any more.
    if (new Date(locked.next_step_at as Date).getTime() !== lease.getTime()) return 'skipped';
    const enrollment = claimedFromRow(locked);
    const ws = enrollment.workspaceId;
    const now = new Date();

    // Everything the step needs in one round trip (read after the enrollment's lock, so it is current):
    // campaign, steps, workspace config, contact, the enrollment's thread and its outbound messages.
    const [campaign] = await rows<Record<string, unknown>>(
      m,
      `SELECT c.status, c.schedule, c.inbox_ids, c.daily_limit, s.steps, w.config,
         (SELECT to_jsonb(ct) FROM contacts ct WHERE ct.workspace_id = $1 AND ct.id = $3) AS contact,
         (SELECT jsonb_build_object('id', t.id, 'subject', t.subject) FROM threads t
           WHERE t.workspace_id = $1 AND t.enrollment_id = $4 ORDER BY t.id LIMIT 1) AS thread,
         (SELECT coalesce(jsonb_agg(jsonb_build_object('id', x.id, 'status', x.status,
             'step_position', x.step_position, 'message_id', x.message_id) ORDER BY x.step_position), '[]'::jsonb)
           FROM messages x WHERE x.workspace_id = $1 AND x.enrollment_id = $4 AND x.direction = 'outbound') AS messages
       FROM campaigns c
       JOIN sequences s ON s.id = c.sequence_id AND s.workspace_id = c.workspace_id
       JOIN workspaces w ON w.id = c.workspace_id
       WHERE c.workspace_id = $1 AND c.id = $2`,
      [ws, enrollment.campaignId, enrollment.contactId, enrollment.id],
    );
    if (!campaign || campaign.status !== 'active') return 'skipped';
    const outbound =
      (campaign.messages as Array<{
        id: number;
        status: string;
        step_position: number | null;
        message_id: string | null;
      }>) ?? [];
    const schedule = campaign.schedule as Campaign['schedule'];
    const steps = [...((campaign.steps as SequenceStep[]) ?? [])].sort((a, b) => a.position - b.position);
    const config = effectiveConfig(campaign.config as Partial<WorkspaceConfig>);

    const step = steps[enrollment.currentStep];
    if (!step) {
      await this.complete(m, enrollment);
      return 'stopped';
    }

    // A step recorded before: sent, failed, or left by a crash (see resolveExisting).
    const existing = outbound.find((x) => x.step_position === step.position);
    if (existing) {
      const resolved = await this.resolveExisting(m, enrollment, steps, step, existing);
      if (resolved !== 'record') return resolved;
    }

    const opening = nextWindowOpening(schedule, now);
    if (!opening || opening.getTime() > now.getTime()) {
      await this.defer(m, enrollment, opening ?? new Date(now.getTime() + 86_400_000));
      return 'deferred';
    }

    const contact = campaign.contact as Record<string, unknown> | null;
    if (!contact) {
      await stopEnrollment(m, ws, enrollment.id, 'manual', 'contact no longer exists');
      return 'stopped';
    }
    if (contact.suppression_reason) {
      await stopEnrollment(
        m,
        ws,
        enrollment.id,
        stopReasonForSuppression(contact.suppression_reason as string),
        'address is on the suppression list',
      );
      return 'stopped';
    }

    // Follow-ups keep their inbox; a first step rotates over the campaign's inboxes.
    const candidates = enrollment.inboxId
      ? [enrollment.inboxId]
      : rotate((campaign.inbox_ids as string[]) ?? [], enrollment.id);
    const inboxes = candidates.length
      ? await m.getRepository(Inbox).find({ where: { workspaceId: ws, id: In(candidates) } })
      : [];
    const input: StepInput = { enrollment, step, contact, config, ...sentSoFar(outbound, campaign.thread) };
    const today = now.toISOString().slice(0, 10);
    let earliest = startOfNextUtcDay(now);
    for (const inboxId of candidates) {
      const inbox = inboxes.find((i) => i.id === inboxId);
      if (!inbox || inbox.status !== 'active') {
        // A follow-up waits for its own inbox to come back; rotation just moves on.
        earliest = minDate(earliest, new Date(now.getTime() + RETRY_DELAY_SECONDS * 1000));
        continue;
      }
      if (
        !bank?.holdsInbox(inbox.id) &&
        inbox.sentTodayDate === today &&
        inbox.sentToday >= inbox.dailyLimit
      ) {
        continue; // full today
      }
      if (bank) {
        // Slots come from the tick's blocks (no hot row written here): take them first, then record.
        const verdict = await this.takeFromBank(bank, enrollment, campaign, inbox, config);
        if (verdict === true) {
          try {
            return await this.recordWith(m, input, inbox);
          } catch (err) {
            if (!(err instanceof StepRenderError)) throw err;
            this.giveBack(bank, enrollment, campaign, inbox);
            await this.pauseForRenderError(m, enrollment, err);
            return 'paused';
          }
        }
        if (verdict === 'campaign') break;
        continue;
      }
      // Record first, reserve last: the capacity rows (hot, shared by every send of an inbox, domain
      // or campaign) stay locked only for the reservation statements and the commit.
      await m.query('SAVEPOINT attempt');
      let prepared: Prepared;
      try {
        prepared = await this.recordWith(m, input, inbox);
      } catch (err) {
        if (!(err instanceof StepRenderError)) throw err;
        await m.query('ROLLBACK TO SAVEPOINT attempt');
        await this.pauseForRenderError(m, enrollment, err);
        return 'paused';
      }
      const verdict = await this.reserve(m, enrollment, campaign, inbox, config);
      // No RELEASE: the savepoint ends with the commit, one round trip less while the capacity rows are locked.
      if (verdict === true) return prepared;
      await m.query('ROLLBACK TO SAVEPOINT attempt');
      if (verdict === 'campaign') break; // no inbox can help today
      if (verdict instanceof Date) earliest = minDate(earliest, verdict);
    }
    await this.defer(m, enrollment, earliest);
    return 'deferred';
  }

  /** Renders the step for `inbox` and inserts the thread (first step) and the `sending` message. */
  private async recordWith(m: EntityManager, input: StepInput, inbox: Inbox): Promise<Prepared> {
    const d = await this.draft(input, inbox);
    // The thread (first step), the `sending` message and the enrollment's inbox in one statement.
    const [msg] = await rows<{ id: number; thread_id: number }>(
      m,
      `WITH new_thread AS (
         INSERT INTO threads (workspace_id, inbox_id, contact_id, enrollment_id, campaign_id, subject, message_count)
         SELECT $1::uuid, $2::uuid, $3::int, $4::int, $5::int, $6::text, 0 WHERE $7::int IS NULL
         RETURNING id
       ), thread AS (
         SELECT id FROM new_thread UNION ALL SELECT $7::int WHERE $7::int IS NOT NULL
       ), msg AS (
         INSERT INTO messages (workspace_id, thread_id, enrollment_id, direction, kind, from_address, to_address,
           subject, body, message_id, in_reply_to, status, step_position)
         SELECT $1::uuid, thread.id, $4::int, 'outbound', 'email', $8::text, $9::text, $6::text, $10::text, $11::text,
           $12::text, 'sending', $13::int
         FROM thread
         RETURNING id, thread_id
       ), enrollment AS (
         UPDATE enrollments SET inbox_id = $2::uuid, updated_at = now() WHERE id = $4::int RETURNING id
       )
       SELECT msg.id, msg.thread_id FROM msg, (SELECT count(*) FROM enrollment) AS e`,
      [
        d.workspaceId,
        d.inbox.id,
        d.contactId,
        d.enrollmentId,
        d.campaignId,
        d.mail.subject,
        d.threadId,
        d.inbox.email,
        d.mail.to,
        d.mail.text,
        d.mail.messageId,
        d.mail.inReplyTo ?? null,
        d.stepPosition,
      ],
    );
    return { ...d, messageRowId: Number(msg.id), threadId: Number(msg.thread_id) };
  }

  /**
   * Records a chunk of claimed enrollments in one transaction (one locking read, one insert), for
   * those on the plain path: active, step due and not recorded before, window open, contact
   * sendable, an inbox with a slot from the tick's blocks. Everything else (`others`) goes through
   * `record` one by one, which handles every case.
   */
  private async recordMany(
    m: EntityManager,
    ids: number[],
    bank: CapacityBank,
    lease: Date,
  ): Promise<{ recorded: Prepared[]; others: number[] }> {
    const now = new Date();
    const found = await rows<Record<string, unknown>>(
      m,
      `SELECT e.id, e.workspace_id, e.campaign_id, e.contact_id, e.status, e.current_step, e.inbox_id,
         c.status AS campaign_status, c.schedule, c.inbox_ids, c.daily_limit, s.steps, w.config,
         (SELECT to_jsonb(ct) FROM contacts ct WHERE ct.workspace_id = e.workspace_id AND ct.id = e.contact_id) AS contact,
         (SELECT jsonb_build_object('id', t.id, 'subject', t.subject) FROM threads t
           WHERE t.workspace_id = e.workspace_id AND t.enrollment_id = e.id ORDER BY t.id LIMIT 1) AS thread,
         (SELECT coalesce(jsonb_agg(jsonb_build_object('id', x.id, 'status', x.status,
             'step_position', x.step_position, 'message_id', x.message_id) ORDER BY x.step_position), '[]'::jsonb)
           FROM messages x WHERE x.workspace_id = e.workspace_id AND x.enrollment_id = e.id
             AND x.direction = 'outbound') AS messages
       FROM enrollments e
       JOIN campaigns c ON c.workspace_id = e.workspace_id AND c.id = e.campaign_id
       JOIN sequences s ON s.id = c.sequence_id AND s.workspace_id = c.workspace_id
       JOIN workspaces w ON w.id = c.workspace_id
       WHERE e.id = ANY($1::int[]) AND e.status = 'active' AND e.next_step_at = $2
       ORDER BY e.id
       FOR UPDATE OF e`,
      [ids, lease],
    );
    const inboxIds = new Set<string>();
    for (const r of found) {
      if (r.inbox_id) inboxIds.add(r.inbox_id as string);
      else for (const i of (r.inbox_ids as string[]) ?? []) inboxIds.add(i);
    }
    const inboxes = inboxIds.size
      ? await m.getRepository(Inbox).find({ where: { id: In([...inboxIds]) } })
      : [];
    const today = now.toISOString().slice(0, 10);
    const handled = new Set<number>();
    const drafts: Array<Omit<Prepared, 'messageRowId' | 'threadId'> & { threadId: number | null }> = [];
    for (const r of found) {
      if (r.campaign_status !== 'active') continue;
      const enrollment = claimedFromRow(r);
      const steps = [...((r.steps as SequenceStep[]) ?? [])].sort((a, b) => a.position - b.position);
      const step = steps[enrollment.currentStep];
      if (!step) continue;
      const outbound =
        (r.messages as Array<{ status: string; step_position: number | null; message_id: string | null }>) ??
        [];
      if (outbound.some((x) => x.step_position === step.position)) continue;
      const opening = nextWindowOpening(r.schedule as Campaign['schedule'], now);
      if (!opening || opening.getTime() > now.getTime()) continue;
      const contact = r.contact as Record<string, unknown> | null;
      if (!contact || contact.suppression_reason) continue;
      const config = effectiveConfig(r.config as Partial<WorkspaceConfig>);
      const candidates = enrollment.inboxId
        ? [enrollment.inboxId]
        : rotate((r.inbox_ids as string[]) ?? [], enrollment.id);
      let chosen: Inbox | undefined;
      for (const inboxId of candidates) {
        const inbox = inboxes.find((i) => i.id === inboxId && i.workspaceId === enrollment.workspaceId);
        if (!inbox || inbox.status !== 'active') continue;
        if (
          !bank.holdsInbox(inbox.id) &&
          inbox.sentTodayDate === today &&
          inbox.sentToday >= inbox.dailyLimit
        ) {
          continue;
        }
        const verdict = await this.takeFromBank(bank, enrollment, r, inbox, config);
        if (verdict === true) {
          chosen = inbox;
          break;
        }
        if (verdict === 'campaign') break;
      }
      if (!chosen) continue;
      try {
        drafts.push(
          await this.draft({ enrollment, step, contact, config, ...sentSoFar(outbound, r.thread) }, chosen),
        );
      } catch (err) {
        if (!(err instanceof StepRenderError)) throw err;
        this.giveBack(bank, enrollment, r, chosen);
        await this.pauseForRenderError(m, enrollment, err);
      }
      handled.add(enrollment.id);
    }
    const recorded: Prepared[] = [];
    if (drafts.length > 0) {
      // Threads (first steps), `sending` messages and the enrollments' inbox choice in one statement.
      const inserted = await rows<{ id: number; thread_id: number; enrollment_id: number }>(
        m,
        `WITH input AS (
           SELECT * FROM unnest($1::int[], $2::uuid[], $3::uuid[], $4::int[], $5::int[], $6::text[], $7::int[],
             $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::int[])
             AS x(enrollment_id, workspace_id, inbox_id, contact_id, campaign_id, subject, thread_id,
               from_address, to_address, body, message_id, in_reply_to, step_position)
         ), new_thread AS (
           INSERT INTO threads (workspace_id, inbox_id, contact_id, enrollment_id, campaign_id, subject, message_count)
           SELECT workspace_id, inbox_id, contact_id, enrollment_id, campaign_id, subject, 0
           FROM input WHERE thread_id IS NULL
           RETURNING id, enrollment_id
         ), msg AS (
           INSERT INTO messages (workspace_id, thread_id, enrollment_id, direction, kind, from_address, to_address,
             subject, body, message_id, in_reply_to, status, step_position)
           SELECT i.workspace_id, coalesce(i.thread_id, t.id), i.enrollment_id, 'outbound', 'email', i.from_address,
             i.to_address, i.subject, i.body, i.message_id, i.in_reply_to, 'sending', i.step_position
           FROM input i LEFT JOIN new_thread t ON t.enrollment_id = i.enrollment_id
           RETURNING id, thread_id, enrollment_id
         ), chosen AS (
           UPDATE enrollments e SET inbox_id = i.inbox_id, updated_at = now()
           FROM input i WHERE e.id = i.enrollment_id RETURNING e.id
         )
         SELECT msg.id, msg.thread_id, msg.enrollment_id FROM msg, (SELECT count(*) FROM chosen) AS c`,
        [
          drafts.map((d) => d.enrollmentId),
          drafts.map((d) => d.workspaceId),
          drafts.map((d) => d.inbox.id),
          drafts.map((d) => d.contactId),
          drafts.map((d) => d.campaignId),
          drafts.map((d) => d.mail.subject),
          drafts.map((d) => d.threadId),
          drafts.map((d) => d.inbox.email),
          drafts.map((d) => d.mail.to),
          drafts.map((d) => d.mail.text),
          drafts.map((d) => d.mail.messageId),
          drafts.map((d) => d.mail.inReplyTo ?? null),
          drafts.map((d) => d.stepPosition),
        ],
      );
      const byEnrollment = new Map(inserted.map((x) => [Number(x.enrollment_id), x]));
      for (const d of drafts) {
        const row = byEnrollment.get(d.enrollmentId);
        if (!row) throw new Error(`send: chunk insert lost enrollment ${d.enrollmentId}`);
        recorded.push({ ...d, messageRowId: Number(row.id), threadId: Number(row.thread_id) });
      }
    }
    return { recorded, others: ids.filter((id) => !handled.has(id)) };
  }

  /** The step rendered for `inbox`: a Prepared without row ids (`threadId`: an existing thread or null). */
  private async draft(
    { enrollment, step, contact, config, thread, previous }: StepInput,
    inbox: Inbox,
  ): Promise<Omit<Prepared, 'messageRowId' | 'threadId'> & { threadId: number | null }> {
    const ws = enrollment.workspaceId;
    const vars = templateVars(
      {
        email: contact.email as string,
        firstName: contact.first_name as string | null,
        lastName: contact.last_name as string | null,
        company: contact.company as string | null,
        title: contact.title as string | null,
        phone: contact.phone as string | null,
        timezone: contact.timezone as string | null,
        stage: contact.stage as string,
        customFields: contact.custom_fields as Record<string, string> | null,
      },
      { email: inbox.email, displayName: inbox.displayName, domain: inbox.domain },
    );
    const composed = await composeStep(step, vars, thread?.subject ?? null);
    const token = signUnsubscribeToken({
      workspaceId: ws,
      contactId: enrollment.contactId,
      campaignId: enrollment.campaignId,
      enrollmentId: enrollment.id,
    });
    const url = unsubscribeUrl(appConfig().publicUrl, token);
    const body = config.unsubscribe_footer_enabled ? withFooter(composed.body, url) : composed.body;
    const messageId = newMessageId(inbox.domain);
    const references = previous.map((p) => p.message_id).filter(Boolean);
    const inReplyTo = references.length ? references[references.length - 1] : undefined;

    return {
      workspaceId: ws,
      enrollmentId: enrollment.id,
      campaignId: enrollment.campaignId,
      contactId: enrollment.contactId,
      stepPosition: step.position,
      threadId: thread?.id ?? null,
      previousInboxId: enrollment.inboxId,
      inbox,
      mail: {
        from: { name: inbox.displayName ?? '', address: inbox.email },
        to: contact.email as string,
        subject: composed.subject,
        text: body,
        messageId,
        ...(inReplyTo ? { inReplyTo, references } : {}),
        headers: unsubscribeHeaders(url),
      },
    };
  }

  /**
   * Reserves one send through `inbox`: the campaign's daily cap, the inbox's pacing slot (gap +
   * jitter), its daily limit and its domain's daily limit, each a conditional write that only
   * succeeds below its cap. The caller rolls back to its savepoint on anything but `true`:
   * 'campaign' (cap reached today), a Date (the inbox's next pacing slot) or false (inbox or
   * domain full today).
   */
  private async reserve(
    m: EntityManager,
    enrollment: Claimed,
    campaign: Record<string, unknown>,
    inbox: Inbox,
    config: WorkspaceConfig,
  ): Promise<true | 'campaign' | Date | false> {
    const ws = enrollment.workspaceId;
    const campaignLimit = campaign.daily_limit as number | null;
    if (campaignLimit !== null && campaignLimit !== undefined) {
      if (!(await this.bumpCounter(m, ws, 'campaign', String(enrollment.campaignId), campaignLimit))) {
        return 'campaign';
      }
    }
    const gapSeconds = appConfig().sendMinGapSeconds;
    if (gapSeconds > 0) {
      const gap = gapSeconds * (1 + Math.random() * 0.5);
      const slot = await rows<{ next_send_at: Date; ok: boolean }>(
        m,
        `INSERT INTO inbox_pacing (inbox_id, workspace_id, next_send_at)
         VALUES ($1, $2, now() + make_interval(secs => $3::double precision))
         ON CONFLICT (inbox_id) DO UPDATE SET next_send_at = EXCLUDED.next_send_at
           WHERE inbox_pacing.next_send_at <= now()
         RETURNING inbox_id`,
        [inbox.id, ws, gap],
      );
      if (slot.length === 0) {
        const [p] = await rows<{ next_send_at: Date }>(
          m,
          'SELECT next_send_at FROM inbox_pacing WHERE inbox_id = $1',
          [inbox.id],
        );
        return p ? new Date(p.next_send_at) : new Date(Date.now() + 1000);
      }
    }
    // The inbox's daily slot and its domain's, in one statement (one round trip while the rows are locked).
    const [taken] = await rows<{ inbox: number; domain: number }>(
      m,
      `WITH inbox AS (
         UPDATE inboxes SET
           sent_today = CASE WHEN sent_today_date = ${UTC_TODAY} THEN sent_today + 1 ELSE 1 END,
           sent_today_date = ${UTC_TODAY}, last_sent_at = now()
         WHERE workspace_id = $1 AND id = $2 AND status = 'active' AND daily_limit > 0
           AND (sent_today_date IS DISTINCT FROM ${UTC_TODAY} OR sent_today < daily_limit)
         RETURNING id
       ), domain AS (
         INSERT INTO send_counters (workspace_id, scope, key, day, sent)
         SELECT $1, 'domain', $3, ${UTC_TODAY}, 1 FROM inbox
         ON CONFLICT (workspace_id, scope, key, day) DO UPDATE SET sent = send_counters.sent + 1
           WHERE send_counters.sent < $4
         RETURNING sent
       )
       SELECT (SELECT count(*)::int FROM inbox) AS inbox, (SELECT count(*)::int FROM domain) AS domain`,
      [ws, inbox.id, inbox.domain.toLowerCase(), config.domain_daily_send_limit],
    );
    return taken.inbox === 1 && taken.domain === 1;
  }

  /** As `reserve`, from the tick's blocks (no pacing): the campaign's slot, then the inbox's and its domain's. */
  private async takeFromBank(
    bank: CapacityBank,
    enrollment: Claimed,
    campaign: Record<string, unknown>,
    inbox: Inbox,
    config: WorkspaceConfig,
  ): Promise<true | 'campaign' | false> {
    const ws = enrollment.workspaceId;
    const campaignLimit = campaign.daily_limit as number | null;
    const capped = campaignLimit !== null && campaignLimit !== undefined;
    if (capped && !(await bank.takeCampaign(ws, enrollment.campaignId, campaignLimit))) return 'campaign';
    const domain = inbox.domain.toLowerCase();
    if (await bank.takeInbox(ws, inbox.id, domain, config.domain_daily_send_limit)) return true;
    if (capped) bank.giveBackCampaign(enrollment.campaignId);
    return false;
  }

  /** Puts back the slots `takeFromBank` took for a send that will not happen. */
  private giveBack(
    bank: CapacityBank,
    enrollment: Claimed,
    campaign: Record<string, unknown>,
    inbox: Inbox,
  ): void {
    const campaignLimit = campaign.daily_limit as number | null;
    if (campaignLimit !== null && campaignLimit !== undefined) bank.giveBackCampaign(enrollment.campaignId);
    bank.giveBackInbox(inbox.id);
  }

  /**
   * A step that cannot be rendered for this contact: the enrollment is paused with a note naming the
   * step (never retried on its own; resuming after the template or the contact was fixed tries again).
   */
  private async pauseForRenderError(
    m: EntityManager,
    enrollment: Claimed,
    err: StepRenderError,
  ): Promise<void> {
    await m.query(
      `UPDATE enrollments SET status = 'paused', stop_note = $2, next_step_at = now(), updated_at = now()
       WHERE id = $1 AND status = 'active'`,
      [enrollment.id, err.message],
    );
    logger.warn(
      { enrollmentId: enrollment.id, step: err.position, reason: err.message },
      'send: step not rendered; paused',
    );
  }

  /** +1 on a per-UTC-day counter if it stays within `limit`; false when the cap is reached. */
  private async bumpCounter(
    m: EntityManager,
    workspaceId: string,
    scope: 'campaign' | 'domain',
    key: string,
    limit: number,
  ): Promise<boolean> {
    if (limit <= 0) return false;
    const r = await rows(
      m,
      `INSERT INTO send_counters (workspace_id, scope, key, day, sent) VALUES ($1, $2, $3, ${UTC_TODAY}, 1)
       ON CONFLICT (workspace_id, scope, key, day) DO UPDATE SET sent = send_counters.sent + 1
         WHERE send_counters.sent < $4
       RETURNING sent`,
      [workspaceId, scope, key, limit],
    );
    return r.length > 0;
  }

  private async defer(m: EntityManager, enrollment: Claimed, until: Date): Promise<void> {
    await m.query('UPDATE enrollments SET next_step_at = $2 WHERE id = $1 AND status = $3', [
      enrollment.id,
      until,
      'active',
    ]);
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
    enrollment: Claimed,
    steps: SequenceStep[],
    step: SequenceStep,
    existing: { id: number; status: string },
  ): Promise<Outcome | 'record'> {
    if (existing.status === 'sending') {
      const dropped = await rows(
        m,
        `DELETE FROM messages WHERE id = $1 AND status = 'sending' AND smtp_started_at IS NULL RETURNING id`,
        [existing.id],
      );
      if (dropped.length > 0) {
        logger.info(
          { enrollmentId: enrollment.id, messageId: existing.id },
          'send: a step recorded but never handed to SMTP is sent again',
        );
        return 'record';
      }
      const note = `outcome unknown: step ${step.position} was interrupted during its SMTP conversation (message ${existing.id}); it will not be resent. Review, then resume to continue with the next step.`;
      await this.inDoubt(m, enrollment.id, existing.id, note);
      logger.warn({ enrollmentId: enrollment.id, messageId: existing.id }, 'send: interrupted step in doubt');
      return 'failed';
    }
    // `failed` (reviewed and resumed) or `sent`: the step is consumed; move on.
    await this.advance(m, enrollment, steps, step.position, new Date());
    return 'skipped';
  }

  /**
   * A step whose outcome is unknown: its message `failed` with `error` = `note`, the enrollment paused
   * with the same `stop_note` (due at once when resumed, which moves on to the next step).
   */
  private async inDoubt(
    m: EntityManager,
    enrollmentId: number,
    messageRowId: number,
    note: string,
  ): Promise<void> {
    await m.query(`UPDATE messages SET status = 'failed', error = $2 WHERE id = $1 AND status = 'sending'`, [
      messageRowId,
      note,
    ]);
    await m.query(
      `UPDATE enrollments SET status = 'paused', stop_note = $2, next_step_at = now(), updated_at = now()
       WHERE id = $1 AND status = 'active'`,
      [enrollmentId, note],
    );
  }

  // ---------------------------------------------------------------------------------------------
  // Finalise

  /**
   * `finalise` for many sends at once, set-based: a fixed number of statements per group whatever its
   * size (message status, thread counters, contact stages, enrollments advanced or completed, their
   * events, one increment per metric row).
   */
  private async finaliseMany(m: EntityManager, group: Prepared[]): Promise<void> {
    const now = new Date();
    const updated = await rows<{ id: number; created_at: Date }>(
      m,
      `UPDATE messages SET status = 'sent', sent_at = $2 WHERE id = ANY($1::int[]) AND status = 'sending'
       RETURNING id, created_at`,
      [group.map((p) => p.messageRowId), now],
    );
    const createdAt = new Map(updated.map((r) => [Number(r.id), new Date(r.created_at)]));
    const done = new Set(updated.map((r) => Number(r.id)));
    for (const p of group.filter((x) => !done.has(x.messageRowId))) {
      logger.warn({ messageId: p.messageRowId }, 'send: finalise found the message already resolved');
    }
    const sent = group.filter((p) => done.has(p.messageRowId));
    if (sent.length === 0) return;
    await m.query(
      `UPDATE threads t SET message_count = t.message_count + x.n, last_message_at = $2
       FROM (SELECT id, count(*)::int AS n FROM unnest($1::int[]) AS id GROUP BY id) x
       WHERE t.id = x.id`,
      [sent.map((p) => p.threadId), now],
    );
    await m.query(
      `UPDATE contacts c SET stage = 'contacted', updated_at = now()
       FROM unnest($1::uuid[], $2::int[]) AS x(workspace_id, id)
       WHERE c.workspace_id = x.workspace_id AND c.id = x.id AND c.stage = 'new'`,
      [sent.map((p) => p.workspaceId), sent.map((p) => p.contactId)],
    );
    const writes = new GroupWrites();
    for (const p of sent) {
      // The row as just written (recorded from `p`, finalised above).
      const message = Object.assign(new Message(), {
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
        sentAt: now,
        receivedAt: null,
        stepPosition: p.stepPosition,
        error: null,
        smtpStartedAt: null,
        createdAt: createdAt.get(p.messageRowId)!,
      });
      writes.events.push({
        workspaceId: p.workspaceId,
        type: 'message.sent',
        data: {
          message: toMessageEventView(message),
          enrollment_id: p.enrollmentId,
          campaign_id: p.campaignId,
          contact_id: p.contactId,
        },
      });
    }
    const enrollments = await m.getRepository(Enrollment).find({
      where: { id: In(sent.map((p) => p.enrollmentId)) },
      order: { id: 'ASC' },
      lock: { mode: 'pessimistic_write' },
    });
    const byId = new Map(enrollments.map((e) => [e.id, e]));
    const stepsOf = new Map<number, SequenceStep[]>();
    for (const campaignId of new Set(sent.map((p) => p.campaignId))) {
      const [seq] = await rows<{ steps: SequenceStep[] }>(
        m,
        `SELECT s.steps FROM campaigns c JOIN sequences s ON s.id = c.sequence_id WHERE c.id = $1`,
        [campaignId],
      );
      stepsOf.set(
        campaignId,
        [...(seq?.steps ?? [])].sort((a, b) => a.position - b.position),
      );
    }
    // As `advance`, for every enrollment of the group.
    const completing: Array<{ id: number; step: number }> = [];
    const moving: Array<{ id: number; step: number; due: Date | null }> = [];
    for (const p of sent) {
      const e = byId.get(p.enrollmentId);
      if (!e) continue;
      const steps = stepsOf.get(p.campaignId) ?? [];
      const index = steps.findIndex((s) => s.position === p.stepPosition);
      const nextStep = steps[index + 1];
      const step = Math.max(e.currentStep, index + 1);
      if (!nextStep && e.status === 'active') completing.push({ id: e.id, step });
      else if (!nextStep) moving.push({ id: e.id, step, due: null });
      else {
        const due = e.status === 'stopped' ? null : new Date(now.getTime() + nextStep.delay_minutes * 60_000);
        moving.push({ id: e.id, step, due });
      }
    }
    if (moving.length > 0) {
      await m.query(
        `UPDATE enrollments e SET current_step = x.step, next_step_at = x.due, updated_at = now()
         FROM unnest($1::int[], $2::int[], $3::timestamptz[]) AS x(id, step, due)
         WHERE e.id = x.id`,
        [moving.map((x) => x.id), moving.map((x) => x.step), moving.map((x) => x.due)],
      );
    }
    if (completing.length > 0) {
      const completed = await rows<{ id: number }>(
        m,
        `UPDATE enrollments e SET status = 'completed', current_step = x.step, completed_at = now(),
           next_step_at = NULL, updated_at = now()
         FROM unnest($1::int[], $2::int[]) AS x(id, step)
         WHERE e.id = x.id AND e.status = 'active' RETURNING e.id`,
        [completing.map((x) => x.id), completing.map((x) => x.step)],
      );
      if (completed.length > 0) {
        const fresh = await m.getRepository(Enrollment).find({
          where: { id: In(completed.map((r) => Number(r.id))) },
          order: { id: 'ASC' },
        });
        for (const e of fresh) {
          writes.events.push({
            workspaceId: e.workspaceId,
            type: 'enrollment.completed',
            data: { enrollment: toEnrollmentView(e) },
          });
          writes.metric(e.workspaceId, e.campaignId, 'completed', now);
        }
      }
    }
    // Last: the campaign's daily_metrics row is shared by every send of the day.
    for (const p of sent) writes.metric(p.workspaceId, p.campaignId, 'sent', now);
    await writes.flush(m);
  }

  /**
   * Marks one send `sent` with all its effects. In a group (`writes`), events and metric increments
   * are collected and written once at the end of the group's transaction.
   */
  private async finalise(
    m: EntityManager,
    p: Prepared,
    writes?: GroupWrites,
    stepsCache?: Map<number, SequenceStep[]>,
  ): Promise<void> {
    const now = new Date();
    const updated = await rows<{ id: number }>(
      m,
      `UPDATE messages SET status = 'sent', sent_at = $2 WHERE id = $1 AND status = 'sending' RETURNING id`,
      [p.messageRowId, now],
    );
    if (updated.length === 0) {
      logger.warn({ messageId: p.messageRowId }, 'send: finalise found the message already resolved');
      return;
    }
    await m.query(
      'UPDATE threads SET message_count = message_count + 1, last_message_at = $2 WHERE id = $1',
      [p.threadId, now],
    );
    await m.query(
      `UPDATE contacts SET stage = 'contacted', updated_at = now() WHERE workspace_id = $1 AND id = $2 AND stage = 'new'`,
      [p.workspaceId, p.contactId],
    );
    const message = await m.getRepository(Message).findOneOrFail({ where: { id: p.messageRowId } });
    const sentEvent: NewEvent = {
      workspaceId: p.workspaceId,
      type: 'message.sent',
      data: {
        message: toMessageEventView(message),
        enrollment_id: p.enrollmentId,
        campaign_id: p.campaignId,
        contact_id: p.contactId,
      },
    };
    if (writes) writes.events.push(sentEvent);
    else await recordEvent(m, sentEvent);
    const enrollment = await m
      .getRepository(Enrollment)
      .findOne({ where: { id: p.enrollmentId }, lock: { mode: 'pessimistic_write' } });
    if (enrollment) {
      let steps = stepsCache?.get(p.campaignId);
      if (!steps) {
        const [seq] = await rows<{ steps: SequenceStep[] }>(
          m,
          `SELECT s.steps FROM campaigns c JOIN sequences s ON s.id = c.sequence_id WHERE c.id = $1`,
          [p.campaignId],
        );
        steps = [...(seq?.steps ?? [])].sort((a, b) => a.position - b.position);
        stepsCache?.set(p.campaignId, steps);
      }
      await this.advance(m, enrollment, steps, p.stepPosition, now, writes);
    }
    // Last: the campaign's daily_metrics row is shared by every send of the day.
    if (writes) writes.metric(p.workspaceId, p.campaignId, 'sent', now);
    else await bumpMetric(m, p.workspaceId, p.campaignId, 'sent', 1, now);
  }

  /**
   * Marks step `position` as done: `current_step` moves on and `next_step_at` follows the next step's
   * delay; after the last step an active enrollment completes. Paused or stopped enrollments keep
   * their status (a paused one continues from the right step on resume).
   */
  private async advance(
    m: EntityManager,
    enrollment: Claimed,
    steps: SequenceStep[],
    position: number,
    at: Date,
    writes?: GroupWrites,
  ): Promise<void> {
    const index = steps.findIndex((s) => s.position === position);
    const nextStep = steps[index + 1];
    const currentStep = Math.max(enrollment.currentStep, index + 1);
    if (!nextStep) {
      if (enrollment.status === 'active') {
        enrollment.currentStep = currentStep;
        await this.complete(m, enrollment, writes);
        return;
      }
      await m.query(
        'UPDATE enrollments SET current_step = $2, next_step_at = NULL, updated_at = now() WHERE id = $1',
        [enrollment.id, currentStep],
      );
      return;
    }
    const due =
      enrollment.status === 'stopped' ? null : new Date(at.getTime() + nextStep.delay_minutes * 60_000);
    await m.query(
      'UPDATE enrollments SET current_step = $2, next_step_at = $3, updated_at = now() WHERE id = $1',
      [enrollment.id, currentStep, due],
    );
  }

  private async complete(m: EntityManager, enrollment: Claimed, writes?: GroupWrites): Promise<void> {
    const done = await rows<{ id: number }>(
      m,
      `UPDATE enrollments SET status = 'completed', current_step = $2, completed_at = now(), next_step_at = NULL,
         updated_at = now()
       WHERE id = $1 AND status = 'active' RETURNING id`,
      [enrollment.id, enrollment.currentStep],
    );
    if (done.length === 0) return;
    const fresh = await m.getRepository(Enrollment).findOneOrFail({ where: { id: enrollment.id } });
    const event: NewEvent = {
      workspaceId: fresh.workspaceId,
      type: 'enrollment.completed',
      data: { enrollment: toEnrollmentView(fresh) },
    };
    if (writes) {
      writes.events.push(event);
      writes.metric(fresh.workspaceId, fresh.campaignId, 'completed', new Date());
    } else {
      await recordEvent(m, event);
      await bumpMetric(m, fresh.workspaceId, fresh.campaignId, 'completed');
    }
  }

  // ---------------------------------------------------------------------------------------------
  // SMTP failures

  /** Handles a send that SMTP did not accept, as smtp-outcome.ts classifies it. */
  private async failed(p: Prepared, err: unknown): Promise<Outcome> {
    const smtpError = (err instanceof SmtpSendError ? err.smtpError : err) as SmtpError;
    // Without a trace (not from sendWithin) nothing was handed over.
    const handedOver = err instanceof SmtpSendError ? err.trace.handedOver() : false;
    const failure = classifySmtpFailure(smtpError ?? {}, handedOver);
    if (failure.kind === 'bounced') {
      // The server refused this recipient or message for good: a hard bounce.
      await this.ds.transaction(async (m) => {
        await recordHardBounce(m, {
          workspaceId: p.workspaceId,
          contactId: p.contactId,
          email: p.mail.to,
          enrollmentId: p.enrollmentId,
          campaignId: p.campaignId,
          statusCode: enhancedStatus(smtpError.response) ?? String(failure.responseCode),
          diagnostic: smtpError.response ?? smtpError.message ?? null,
        });
        await m.query(
          `UPDATE messages SET status = 'failed', error = $2 WHERE id = $1 AND status = 'sending'`,
          [p.messageRowId, `hard bounce: ${failure.reason}`],
        );
      });
      return 'bounced';
    }
    await this.ds.transaction(async (m) => {
      await m.query(
        `UPDATE inboxes SET last_error = $2, last_error_at = now(),
           status = CASE WHEN $3 THEN 'error' ELSE status END
         WHERE id = $1`,
        [p.inbox.id, failure.reason, failure.kind === 'not_sent' && failure.inboxError],
      );
      if (failure.kind === 'not_sent') {
        // The server cannot have accepted it: forget the record and retry later.
        await this.dropRecord(m, p, RETRY_DELAY_SECONDS);
      } else {
        // Handed over, no final reply: the server may have it. Never resend; ask for review.
        await this.inDoubt(
          m,
          p.enrollmentId,
          p.messageRowId,
          `outcome unknown: step ${p.stepPosition} was handed to the SMTP server but no final reply came (${failure.reason}); it will not be resent. Review, then resume to continue with the next step.`,
        );
      }
    });
    logger.warn(
      { inboxId: p.inbox.id, enrollmentId: p.enrollmentId, reason: failure.reason, outcome: failure.kind },
      'send: SMTP failure',
    );
    return failure.kind === 'not_sent' ? 'deferred' : 'failed';
  }

  /**
   * Forgets a record that never reached the server: the `sending` row (only if its conversation never
   * began or failed before the message was handed over), an empty new thread, the enrollment's inbox
   * choice; the step is due again after `delaySeconds`.
   */
  private async dropRecord(m: EntityManager, p: Prepared, delaySeconds: number): Promise<void> {
    await m.query(`DELETE FROM messages WHERE id = $1 AND status = 'sending'`, [p.messageRowId]);
    await m.query(
      `DELETE FROM threads t WHERE t.id = $1 AND t.message_count = 0
         AND NOT EXISTS (SELECT 1 FROM messages x WHERE x.thread_id = t.id)`,
      [p.threadId],
    );
    await m.query(
      `UPDATE enrollments SET next_step_at = now() + make_interval(secs => $2::double precision), inbox_id = $3
       WHERE id = $1 AND status = 'active'`,
      [p.enrollmentId, delaySeconds, p.previousInboxId],
    );
  }
}

function rotate<T>(items: T[], seed: number): T[] {
  if (items.length === 0) return items;
  const start = seed % items.length;
  return [...items.slice(start), ...items.slice(0, start)];
}

const minDate = (a: Date, b: Date): Date => (a.getTime() <= b.getTime() ? a : b);

function enhancedStatus(response: string | undefined): string | null {
  const m = /\b([245]\.\d{1,3}\.\d{1,3})\b/.exec(response ?? '');
  return m ? m[1] : null;
}

function errInfo(err: unknown): Record<string, unknown> {
  return err instanceof Error ? { message: err.message, stack: err.stack } : { message: String(err) };
}
