/**
 * The send engine's shared vocabulary: its limits, what a claimed enrollment and a recorded step look
 * like, and what one tick shares between its sends.
 */
import type { MetricCounters } from '../../analytics/metrics.js';
import type { Campaign, CampaignVerification } from '../../campaigns/entities/campaign.entity.js';
import type { ContactWritesRepository } from '../../contacts/contact-writes.repository.js';
import type { EnrollmentEffects } from '../../enrollments/enrollment-effects.js';
import type { EnrollmentStepsRepository } from '../../enrollments/enrollment-steps.repository.js';
import type { Enrollment } from '../../enrollments/entities/enrollment.entity.js';
import type { Outbox } from '../../events/outbox.js';
import type { Inbox } from '../../inboxes/entities/inbox.entity.js';
import type { InboxStateRepository } from '../../inboxes/inbox-state.repository.js';
import type { SequenceStep } from '../../sequences/entities/sequence.entity.js';
import type { Reactions } from '../../reactions/reactions.js';
import type { MessageWritesRepository } from '../../threads/message-writes.repository.js';
import type { WorkspaceConfig } from '../../workspaces/workspace-config.js';
import { SMTP_SEND_DEADLINE_MS } from '../smtp-transport.pool.js';
import type { CapacityBank } from './capacity-bank.js';
import type { StartMarker } from './slots.js';
import type { WorkspaceId } from '../../../common/tenant/workspace-id.js';

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
 * or failed): what a SIGKILL can leave in doubt, which must stay at most 32.
 */
export const SMTP_CONCURRENCY = SEND_CONCURRENCY * SMTP_LANES_PER_CHUNK;
if (SMTP_CONCURRENCY > 32)
  throw new Error('SMTP_CONCURRENCY must stay at most 32 (what a crash may leave in doubt)');
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

/** The enrollment columns the engine works with (read with its row lock). */
export type Claimed = Pick<
  Enrollment,
  'id' | 'workspaceId' | 'campaignId' | 'contactId' | 'status' | 'currentStep' | 'inboxId' | 'subsequenceId'
>;

/** An outbound message already recorded for the enrollment. */
export interface RecordedMessage {
  id: number;
  status: string;
  step_position: number | null;
  message_id: string | null;
}

/** One claimed enrollment with everything its next step needs, read under its row lock. */
export interface DueStep {
  enrollment: Claimed;
  campaign: {
    status: string;
    schedule: Campaign['schedule'];
    inboxIds: string[];
    dailyLimit: number | null;
    /** Nothing is sent before this. */
    startAt: Date | null;
    /** The schedule is read in the contact's timezone. */
    sendInContactTimezone: boolean;
    /** Which address verdicts are skipped (CONTRACT §24; engine/verification-gate.ts). */
    verification: CampaignVerification;
  };
  /** The sequence's steps in position order. */
  steps: SequenceStep[];
  config: WorkspaceConfig;
  /** The contact as a row (snake_case), or null when it no longer exists. */
  contact: Record<string, unknown> | null;
  /** When the enrollment was made: a `pending` contact waits for its verdict at most 10 minutes from then or its step's due time. */
  enrolledAt: Date;
  /** The enrollment's thread, once its first step was recorded. */
  thread: { id: number; subject: string } | undefined;
  /** Its outbound messages, in step order. */
  outbound: RecordedMessage[];
  /** A subsequence enrollment: the Message-IDs of the conversation it continues (sent and received); else null. */
  conversation: string[] | null;
}

/** What rendering a step needs besides the inbox it goes out from. */
export interface StepInput {
  enrollment: Claimed;
  step: SequenceStep;
  contact: Record<string, unknown>;
  config: WorkspaceConfig;
  thread: { id: number; subject: string } | undefined;
  /** Message-IDs of the steps already sent (for In-Reply-To/References). */
  previous: Array<{ message_id: string }>;
}

/** A step rendered for an inbox, ready to be recorded (`threadId` null: its thread is created with it). */
export interface Draft {
  workspaceId: WorkspaceId;
  enrollmentId: number;
  campaignId: number;
  contactId: number;
  /** The enrollment's subsequence (null: the campaign's own sequence): where the step is counted. */
  subsequenceId: number | null;
  stepPosition: number;
  /** The step variant rendered (`A`..`E`). */
  variant: string;
  threadId: number | null;
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

/** A recorded (committed) step: its `sending` message row and thread exist. */
export interface Prepared extends Draft {
  messageRowId: number;
  threadId: number;
}

export type Outcome = 'sent' | 'deferred' | 'stopped' | 'paused' | 'bounced' | 'failed' | 'skipped';

/** What one tick shares between its sends. */
export interface TickContext {
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

export const errInfo = (err: unknown): Record<string, unknown> =>
  err instanceof Error ? { message: err.message, stack: err.stack } : { message: String(err) };

/**
 * Where the engine's parts write other modules' tables, each through its owner (injected into
 * SendEngine and ManualReplyService, handed to the parts).
 */
export interface EngineWriters {
  messages: MessageWritesRepository;
  enrollments: EnrollmentStepsRepository;
  contacts: ContactWritesRepository;
  effects: EnrollmentEffects;
  outbox: Outbox;
  counters: MetricCounters;
  inboxes: InboxStateRepository;
  /** What happens next to a contact whose enrollment completed (a `completed` subsequence). */
  reactions: Reactions;
}
