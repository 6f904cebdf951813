/**
 * A reply written by a person, sent from the API (`POST /threads/{id}/messages`) in an existing
 * thread: from the thread's inbox to its contact, `In-Reply-To` the latest message of the
 * conversation and `References` the chain, with the same unsubscribe headers as campaign steps.
 *
 * At most once, like the engine (docs/conversations.md):
 * 1. One transaction: the thread locked; contact sendable (else 422), inbox `active` (else 409); one
 *    slot of the inbox's and its domain's daily limits taken with the engine's conditional write
 *    (capacity.repository.ts), so campaign sends and manual replies together never pass a limit
 *    (else 409); the message recorded `sending`, its SMTP conversation marked as begun, with the
 *    request's Idempotency-Key. Committed before SMTP.
 * 2. SMTP through the inbox's pooled transport, within MANUAL_SEND_DEADLINE_MS.
 * 3. The outcome, classified by the engine's smtp-outcome.ts:
 *    - accepted: `sent`, counted in the thread, `message.sent` → 201; but a row no longer `sending`
 *      (resolved meanwhile by the stale-reply sweep or a same-key retry) keeps what it records, and
 *      the answer is that record with 202, no `message.sent` (CONTRACT §21);
 *    - refused for good (5xx to RCPT TO or to the end of DATA): a hard bounce (suppressed `bounced`,
 *      `email.bounced`, the thread's enrollment stopped), the message `failed` → 422 `contact_id`;
 *    - handed over without a final reply: never resent, the message `failed` with `error`
 *      "outcome unknown: …" → 202 with the message;
 *    - not sent (refused before the message could have been accepted): the record and the capacity
 *      slot are given back → 503 `service_unavailable` (not stored for the Idempotency-Key: a retry
 *      with the same key sends it).
 * A process that dies after step 1 leaves the message `sending`; a retry with the same
 * Idempotency-Key finds it and turns it into `failed`, outcome unknown (202), instead of sending again.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { ApiError } from '../../../common/http/api-error.js';
import { logger } from '../../../common/logging/logger.js';
import { appConfig } from '../../../config/app-config.js';
import { EnrollmentEffects } from '../../enrollments/enrollment-effects.js';
import { Outbox } from '../../events/outbox.js';
import type { Message } from '../../threads/entities/message.entity.js';
import { MessageWritesRepository } from '../../threads/message-writes.repository.js';
import { toMessageView, type MessageView } from '../../threads/message.view.js';
import { signUnsubscribeToken } from '../../unsubscribe/unsubscribe-token.js';
import { InboxStateRepository } from '../../inboxes/inbox-state.repository.js';
import { CapacityRepository } from '../engine/capacity.repository.js';
import { newMessageId, replySubject, unsubscribeHeaders, unsubscribeUrl } from '../engine/compose.js';
import { countSend } from '../../../common/metrics/metrics.js';
import { refusalVerdict } from '../engine/smtp-outcome.js';
import { classifySendFailure } from '../engine/failures.js';
import { MailSenders } from '../mail-senders.js';
import type { ManualReplyDto } from './dto/manual-reply.dto.js';
import { ManualReplyRepository, type ReplyContext } from './manual-reply.repository.js';
import type { WorkspaceId } from '../../../common/tenant/workspace-id.js';

/** The longest one manual reply's SMTP conversation may take (the request waits for it). */
export const MANUAL_SEND_DEADLINE_MS = 60_000;

/** The answer: 201 once SMTP accepted it, 202 when its outcome is unknown. */
export interface ManualReplyResult {
  status: 201 | 202;
  message: MessageView;
}

/** What was recorded before SMTP. */
interface Recorded {
  id: number;
  ctx: ReplyContext;
  day: string;
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

const unknownNote = (what: string): string =>
  `outcome unknown: the reply ${what}; it will not be resent. Check with the recipient before writing again.`;

const hardBounceError = (what: string): ApiError =>
  ApiError.validation(
    'contact_id',
    `The recipient's mail server refused the address for good (${what.slice(0, 200)}); the reply is recorded as failed and the address is now suppressed (bounced)`,
  );

const softBounceError = (reason: string): ApiError =>
  ApiError.validation(
    'contact_id',
    `The recipient's mail server refused this message (${reason.slice(0, 100)}); the reply is recorded as failed and the address stays sendable`,
  );

@Injectable()
export class ManualReplyService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly replies: ManualReplyRepository,
    private readonly capacity: CapacityRepository,
    private readonly inboxes: InboxStateRepository,
    private readonly senders: MailSenders,
    private readonly messages: MessageWritesRepository,
    private readonly effects: EnrollmentEffects,
    private readonly outbox: Outbox,
  ) {}

  async reply(
    workspaceId: WorkspaceId,
    threadId: number,
    input: ManualReplyDto,
    idempotencyKey: string | null,
  ): Promise<ManualReplyResult> {
    if (idempotencyKey !== null) {
      const earlier = await this.earlier(workspaceId, threadId, idempotencyKey);
      if (earlier) return earlier;
    }
    const recorded = await this.ds.transaction((m) =>
      this.record(m, workspaceId, threadId, input, idempotencyKey),
    );
    const { ctx } = recorded;
    let messageId: string;
    try {
      // The same transport seam as campaign steps (mail-senders.ts).
      const sender = await this.senders.ready(ctx.inbox);
      ({ messageId } = await sender.send(recorded.mail, MANUAL_SEND_DEADLINE_MS));
    } catch (err) {
      return this.failed(workspaceId, recorded, err);
    }
    const message = await this.ds.transaction(async (m) => {
      if (messageId !== recorded.mail.messageId) {
        await this.messages.replaceMessageId(workspaceId, recorded.id, messageId, m);
      }
      const marked = await this.messages.markManualSent(workspaceId, recorded.id, new Date(), m);
      const sent = await this.replies.findMessage(workspaceId, recorded.id, m);
      // Resolved meanwhile (the stale-reply sweep, or a retry with the same Idempotency-Key after
      // this request's key lease lapsed): what is recorded stands, and is what the client is told.
      if (!marked) return sent;
      await this.outbox.record(m, {
        workspaceId,
        type: 'message.sent',
        data: {
          message: toMessageView(sent),
          enrollment_id: ctx.enrollmentId,
          campaign_id: ctx.campaignId,
          contact_id: ctx.contactId,
        },
      });
      return sent;
    });
    if (message.status === 'sent') countSend('sent', workspaceId);
    return { status: message.status === 'sent' ? 201 : 202, message: toMessageView(message) };
  }

  /** A reply recorded earlier with this Idempotency-Key (its first request died or its record expired). */
  private async earlier(
    workspaceId: WorkspaceId,
    threadId: number,
    key: string,
  ): Promise<ManualReplyResult | null> {
    return this.ds.transaction(async (m) => {
      let found: Message | null = await this.replies.findByIdempotencyKey(workspaceId, key, m);
      if (!found) return null;
      if (found.threadId !== threadId) {
        throw new ApiError(
          422,
          'idempotency_key_reused',
          'This Idempotency-Key was used for a reply in another thread',
          'Idempotency-Key',
        );
      }
      if (found.status === 'sending') {
        // Its request ended without resolving it (the key was free again): in doubt, never resent.
        await this.messages.markFailed(
          workspaceId,
          found.id,
          unknownNote('was interrupted before its outcome was known'),
          m,
        );
        found = await this.replies.findMessage(workspaceId, found.id, m);
      }
      if (found.error?.startsWith('hard bounce')) throw hardBounceError(found.error);
      if (found.error?.startsWith('soft bounce')) throw softBounceError(found.error);
      return { status: found.status === 'sent' ? 201 : 202, message: toMessageView(found) };
    });
  }

  /** Step 1: checks, capacity and the `sending` record, in the caller's transaction. */
  private async record(
    m: EntityManager,
    workspaceId: WorkspaceId,
    threadId: number,
    input: ManualReplyDto,
    idempotencyKey: string | null,
  ): Promise<Recorded> {
    const ctx = await this.replies.lockThread(workspaceId, threadId, m);
    if (!ctx) throw ApiError.notFound('Thread');
    if (!ctx.contact) throw ApiError.validation('contact_id', "The thread's contact no longer exists");
    if (ctx.contact.suppressionReason !== null) {
      throw ApiError.validation(
        'contact_id',
        `The thread's contact is on the suppression list (${ctx.contact.suppressionReason}); nothing was sent`,
      );
    }
    const { inbox } = ctx;
    if (inbox.status !== 'active') {
      throw ApiError.conflict(`The thread's inbox is ${inbox.status}, not active; nothing was sent`);
    }
    const day = await this.replies.utcToday(workspaceId, m);
    const slot = await this.capacity.takeInboxAndDomain(
      workspaceId,
      inbox.id,
      inbox.domain.toLowerCase(),
      ctx.config.domain_daily_send_limit,
      m,
    );
    if (!slot) {
      throw ApiError.conflict(
        "The thread's inbox (or its sending domain) has reached its daily limit; nothing was sent. Try again after 00:00 UTC",
      );
    }
    const chain = await this.replies.chain(workspaceId, threadId, m);
    const own = input.subject?.replace(/[\r\n]+/g, ' ').trim();
    const subject = own ? own : replySubject(ctx.subject.replace(/[\r\n]+/g, ' '));
    const token = signUnsubscribeToken({
      workspaceId,
      contactId: ctx.contactId,
      campaignId: ctx.campaignId ?? 0,
      enrollmentId: ctx.enrollmentId ?? 0,
    });
    const inReplyTo = chain.length ? chain[chain.length - 1] : undefined;
    const mail: Recorded['mail'] = {
      from: { name: inbox.displayName ?? '', address: inbox.email },
      to: ctx.contact.email,
      subject,
      text: input.body,
      messageId: newMessageId(inbox.domain),
      ...(inReplyTo ? { inReplyTo, references: chain } : {}),
      headers: unsubscribeHeaders(unsubscribeUrl(appConfig().publicUrl, token)),
    };
    const id = await this.messages.insertManualSending(
      workspaceId,
      {
        threadId,
        enrollmentId: ctx.enrollmentId,
        from: inbox.email,
        to: mail.to,
        subject,
        body: mail.text,
        messageId: mail.messageId,
        inReplyTo: inReplyTo ?? null,
        idempotencyKey,
      },
      m,
    );
    return { id, ctx, day, mail };
  }

  /** Step 3 for a send SMTP did not accept. */
  private async failed(workspaceId: WorkspaceId, r: Recorded, err: unknown): Promise<ManualReplyResult> {
    const { failure, smtpError, holdSeconds } = classifySendFailure(err);
    const { ctx } = r;
    logger.warn(
      { inboxId: ctx.inbox.id, messageId: r.id, reason: failure.reason, outcome: failure.kind },
      'manual reply: SMTP failure',
    );
    if (failure.kind === 'bounced') {
      const verdict = refusalVerdict(smtpError, failure.responseCode);
      await this.ds.transaction(async (m) => {
        await this.effects.recordBounce(m, {
          workspaceId,
          contactId: ctx.contactId,
          email: r.mail.to,
          enrollmentId: ctx.enrollmentId,
          campaignId: ctx.campaignId,
          // The manual message's own status is this service's to set (failed, below).
          messageRowId: null,
          verdict,
        });
        const note = verdict.hard
          ? `hard bounce: ${failure.reason}`
          : `soft bounce (${verdict.reason}): ${failure.reason}`;
        await this.messages.markFailed(workspaceId, r.id, note, m);
      });
      countSend('bounced', workspaceId);
      throw verdict.hard ? hardBounceError(String(failure.responseCode)) : softBounceError(verdict.reason);
    }
    if (failure.kind === 'unknown') {
      const message = await this.ds.transaction(async (m) => {
        await this.inboxes.noteSendFailure(workspaceId, ctx.inbox.id, failure.reason, false, m);
        const to = ctx.inbox.transport === 'api' ? "the provider's API" : 'the SMTP server';
        const note = unknownNote(`was handed to ${to} but no final reply came (${failure.reason})`);
        await this.messages.markFailed(workspaceId, r.id, note, m);
        return this.replies.findMessage(workspaceId, r.id, m);
      });
      countSend('failed', workspaceId);
      return { status: 202, message: toMessageView(message) };
    }
    const resolved = await this.ds.transaction(async (m) => {
      await this.inboxes.noteSendFailure(workspaceId, ctx.inbox.id, failure.reason, failure.inboxError, m);
      if (holdSeconds !== null) await this.inboxes.holdSending(workspaceId, ctx.inbox.id, holdSeconds, m);
      if (!(await this.messages.dropSending(workspaceId, r.id, m))) {
        // Resolved meanwhile (see reply()): the record stands, its slot stays taken.
        return this.replies.findMessage(workspaceId, r.id, m);
      }
      await this.inboxes.giveBackDailyCount(workspaceId, ctx.inbox.id, r.day, 1, m);
      await this.capacity.addToCounter(workspaceId, 'domain', ctx.inbox.domain.toLowerCase(), r.day, -1, m);
      return null;
    });
    if (resolved) return { status: 202, message: toMessageView(resolved) };
    // Nothing was sent; the caller may retry: the engine's word for a step put off is `deferred`.
    countSend('deferred', workspaceId);
    throw new ApiError(
      503,
      'service_unavailable',
      "The inbox's mail server did not accept the reply; nothing was sent. Try again later (the same Idempotency-Key may be reused)",
      undefined,
      { 'Retry-After': String(holdSeconds ?? 60) },
    );
  }
}
