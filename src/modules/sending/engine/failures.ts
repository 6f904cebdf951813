/**
 * What happens to a recorded step that did not end in an accepted send: a hard bounce, a send that
 * cannot have reached the server (record dropped, retried later), or an unknown outcome (never resent:
 * the message `failed` and the enrollment paused for review). The classification is smtp-outcome.ts.
 */
import type { DataSource, EntityManager } from 'typeorm';
import { logger } from '../../../common/logging/logger.js';
import { SendRefused } from '../mail-senders.js';
import { SmtpSendError } from '../smtp-transport.pool.js';
import { RETRY_DELAY_SECONDS, type EngineWriters, type Outcome, type Prepared } from './engine.types.js';
import { classifySmtpFailure, refusalVerdict, type SmtpError, type SmtpFailure } from './smtp-outcome.js';
import type { WorkspaceId } from '../../../common/tenant/workspace-id.js';

/** What a failed send means, whichever sender failed (mail-senders.ts). */
export interface ClassifiedFailure {
  failure: SmtpFailure;
  smtpError: SmtpError;
  /** Hold the inbox's sending this long (a provider's Retry-After). */
  holdSeconds: number | null;
  /** When the step is due again if it was not sent (default RETRY_DELAY_SECONDS). */
  retryDelaySeconds: number;
}

export function classifySendFailure(err: unknown): ClassifiedFailure {
  if (err instanceof SendRefused) {
    return {
      failure: err.failure,
      smtpError: err.smtpError,
      holdSeconds: err.holdSeconds,
      retryDelaySeconds: err.retryDelaySeconds ?? RETRY_DELAY_SECONDS,
    };
  }
  const smtpError = ((err instanceof SmtpSendError ? err.smtpError : err) ?? {}) as SmtpError;
  // Without a trace (not from sendWithin) nothing was handed over.
  const handedOver = err instanceof SmtpSendError ? err.trace.handedOver() : false;
  return {
    failure: classifySmtpFailure(smtpError, handedOver),
    smtpError,
    holdSeconds: null,
    retryDelaySeconds: RETRY_DELAY_SECONDS,
  };
}

/** The note (message `error`, enrollment `stop_note`) of a step whose outcome is unknown. */
export const inDoubtNote = (position: number, what: string): string =>
  `outcome unknown: step ${position} ${what}; it will not be resent. Review, then resume to continue with the next step.`;

export class SendFailures {
  constructor(
    private readonly ds: DataSource,
    private readonly w: EngineWriters,
  ) {}

  /**
   * A step whose outcome is unknown: its message `failed` with `error` = `note`, the enrollment paused
   * with the same `stop_note` (due at once when resumed, which moves on to the next step).
   */
  async inDoubt(
    m: EntityManager,
    workspaceId: WorkspaceId,
    enrollmentId: number,
    messageRowId: number,
    note: string,
  ): Promise<void> {
    await this.w.messages.markFailed(workspaceId, messageRowId, note, m);
    await this.w.enrollments.pause(workspaceId, enrollmentId, note, m);
  }

  /** A sender-side refusal: shown on the inbox (which stays active) and announced as `inbox.error`. */
  private async inboxError(m: EntityManager, p: Prepared, error: string): Promise<void> {
    await this.w.inboxes.noteSendFailure(p.workspaceId, p.inbox.id, error, false, m);
    await this.w.outbox.record(m, {
      workspaceId: p.workspaceId,
      type: 'inbox.error',
      data: { inbox_id: p.inbox.id, email: p.inbox.email, status: p.inbox.status, error },
    });
  }

  /** Forgets a record that never reached the server; the step is due again after `delaySeconds`. */
  async dropRecord(m: EntityManager, p: Prepared, delaySeconds: number): Promise<void> {
    await this.w.messages.dropSendingAndEmptyThread(p.workspaceId, p.messageRowId, p.threadId, m);
    await this.w.enrollments.retryLater(p.workspaceId, p.enrollmentId, p.previousInboxId, delaySeconds, m);
  }

  /** Handles a send that SMTP did not accept, as smtp-outcome.ts classifies it. */
  async failed(p: Prepared, err: unknown): Promise<Outcome> {
    const { failure, smtpError, holdSeconds, retryDelaySeconds } = classifySendFailure(err);
    if (failure.kind === 'bounced') {
      // The server refused this recipient or message for good: a bounce, hard only when the reply
      // says the address cannot receive mail (CONTRACT §18).
      const verdict = refusalVerdict(smtpError, failure.responseCode);
      await this.ds.transaction(async (m) => {
        // `failed` first: bounce protection counts this send among the campaign's recent ones.
        const note = verdict.hard
          ? `hard bounce: ${failure.reason}`
          : `soft bounce (${verdict.reason}): ${failure.reason}`;
        await this.w.messages.markFailed(p.workspaceId, p.messageRowId, note, m);
        const { senderSide } = await this.w.effects.recordBounce(m, {
          workspaceId: p.workspaceId,
          contactId: p.contactId,
          email: p.mail.to,
          enrollmentId: p.enrollmentId,
          campaignId: p.campaignId,
          messageRowId: p.messageRowId,
          verdict,
        });
        if (senderSide) await this.inboxError(m, p, `${verdict.reason} bounce: ${failure.reason}`);
      });
      return 'bounced';
    }
    await this.ds.transaction(async (m) => {
      const disable = failure.kind === 'not_sent' && failure.inboxError;
      await this.w.inboxes.noteSendFailure(p.workspaceId, p.inbox.id, failure.reason, disable, m);
      if (holdSeconds !== null) {
        // The provider asked the inbox to wait (429/503): the inbox is held, not the campaign.
        await this.w.inboxes.holdSending(p.workspaceId, p.inbox.id, holdSeconds, m);
      }
      if (failure.kind === 'not_sent') {
        // The server cannot have accepted it: forget the record and retry later.
        await this.dropRecord(m, p, retryDelaySeconds);
      } else {
        // Handed over, no final reply: the server may have it. Never resend; ask for review.
        const to = p.inbox.transport === 'api' ? "the provider's API" : 'the SMTP server';
        const what = `was handed to ${to} but no final reply came (${failure.reason})`;
        await this.inDoubt(
          m,
          p.workspaceId,
          p.enrollmentId,
          p.messageRowId,
          inDoubtNote(p.stepPosition, what),
        );
      }
    });
    logger.warn(
      {
        inboxId: p.inbox.id,
        enrollmentId: p.enrollmentId,
        reason: failure.reason,
        outcome: failure.kind,
        holdSeconds,
      },
      'send: failure',
    );
    return failure.kind === 'not_sent' ? 'deferred' : 'failed';
  }
}
