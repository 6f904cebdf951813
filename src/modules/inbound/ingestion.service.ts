/**
 * One pipeline for every incoming mail, whether it was polled over IMAP or posted to
 * `POST /inbound/{inbox_id}`: parse (mailparser), match against sent Message-IDs of the inbox's
 * workspace, classify, and apply the effect in one transaction with its event and metric.
 * Unmatched or unparseable mail is ignored (logged); a mail seen twice is recorded once (by its
 * Message-ID, or a hash of its bytes when it has none), so a caller may always try a mail again.
 *
 * A failure is either *transient* (`isTransientFailure`: the database is unreachable, restarting,
 * overloaded or a lock could not be had in time; trying again later can succeed) or *permanent* (the
 * mail itself cannot be used). Callers keep transiently failed mail for another try (IMAP: the
 * checkpoint stays before it; the inbound route: 503 so the MTA retries).
 */
import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { simpleParser, type ParsedMail } from 'mailparser';
import type { DataSource, EntityManager } from 'typeorm';
import { logger } from '../../common/logging/logger.js';
import { bumpMetric, bumpStepMetric } from '../analytics/metrics.js';
import { recordEvent } from '../events/outbox.js';
import type { Inbox } from '../inboxes/entities/inbox.entity.js';
import type { MessageKind } from '../threads/entities/message.entity.js';
import { classify, referencedMessageIds, type Classification } from './classify.js';
import {
  recordComplaint,
  recordHardBounce,
  stopCompanyOnReply,
  stopEnrollment,
} from '../enrollments/enrollment-effects.js';
import { emailDomain, isFreeMailDomain } from './free-mail.js';
import { toMessageEventView } from '../threads/message.view.js';
import { InboundRepository, type OriginalMessage } from './inbound.repository.js';

/** Bodies kept for inbound mail are cut here (the raw mail is not stored). */
const MAX_BODY_CHARS = 200_000;
/**
 * How long the ingesting transaction waits for a row or table lock before giving up (a transient
 * failure, tried again later) instead of holding an IMAP poll or an MTA pipe indefinitely.
 */
const INGEST_LOCK_TIMEOUT = '5s';

/** PostgreSQL text cannot hold NUL: dropped from what is stored, so such a mail is not unstorable. */
const storable = (s: string): string => (s.includes('\0') ? s.replaceAll('\0', '') : s);

export type IngestResult =
  | { status: 'ignored'; reason: string }
  | { status: 'duplicate'; message_id: number }
  | { status: 'recorded'; kind: MessageKind; classification: string; message_id: number };

@Injectable()
export class IngestionService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly inbound: InboundRepository,
  ) {}

  async ingest(inbox: Pick<Inbox, 'id' | 'workspaceId' | 'email'>, raw: Buffer): Promise<IngestResult> {
    let mail: ParsedMail;
    try {
      mail = await simpleParser(raw, { skipImageLinks: true, maxHtmlLengthToParse: 2_000_000 });
    } catch (err) {
      logger.info({ inboxId: inbox.id, err: String(err) }, 'ingest: unparseable mail ignored');
      return { status: 'ignored', reason: 'unparseable' };
    }
    const classification = classify(mail, raw);
    const report = classification.kind === 'bounce' || classification.kind === 'complaint';
    const refs = referencedMessageIds(mail, raw, report).filter((r) => !r.includes('\0'));
    const original = refs.length ? await this.inbound.findOriginal(inbox.workspaceId, refs) : undefined;
    if (!original && classification.kind === 'complaint') {
      // Recorded in the log (what was reported, about which Message-IDs) and ignored: nothing to suppress.
      logger.warn(
        { inboxId: inbox.id, feedbackType: classification.feedbackType, reported: refs.slice(0, 5) },
        'ingest: complaint matches no sent message; ignored',
      );
      return { status: 'ignored', reason: 'complaint matches no sent message' };
    }
    if (refs.length === 0) return this.ignore(inbox, 'no references to a sent message');
    if (!original) return this.ignore(inbox, 'matches no sent message');
    const ownId =
      mail.messageId && /^<[^>\s\0]+>$/.test(mail.messageId.trim())
        ? mail.messageId.trim()
        : `<${createHash('sha256').update(raw).digest('hex')}@inbound.invalid>`;
    return this.ds.transaction((m) => this.apply(m, inbox, mail, classification, original, ownId));
  }

  private ignore(inbox: Pick<Inbox, 'id'>, reason: string): IngestResult {
    logger.info({ inboxId: inbox.id, reason }, 'ingest: mail ignored');
    return { status: 'ignored', reason };
  }

  private async apply(
    m: EntityManager,
    inbox: Pick<Inbox, 'id' | 'workspaceId' | 'email'>,
    mail: ParsedMail,
    c: Classification,
    original: OriginalMessage,
    ownId: string,
  ): Promise<IngestResult> {
    const ws = inbox.workspaceId;
    // The same mail may arrive over IMAP and the inbound route at once: serialise on its Message-ID.
    await this.inbound.lockMessageId(ws, ownId, INGEST_LOCK_TIMEOUT, m);
    const dup = await this.inbound.findInboundId(ws, ownId, m);
    if (dup !== null) return { status: 'duplicate', message_id: dup };

    // Suppression takes the workspace's suppression lock before any contact row is touched.
    if (c.kind === 'bounce' && c.bounceType === 'hard') {
      await recordHardBounce(m, {
        workspaceId: ws,
        contactId: original.contact_id,
        // The address we sent to (a forwarding hop may report another Final-Recipient).
        email: original.to_address.toLowerCase(),
        enrollmentId: original.enrollment_id,
        campaignId: original.campaign_id,
        messageRowId: original.id,
        statusCode: c.statusCode,
        diagnostic: c.diagnostic,
      });
    }
    if (c.kind === 'complaint') {
      await recordComplaint(m, {
        workspaceId: ws,
        contactId: original.contact_id,
        // The address we sent to (reporters often redact Original-Rcpt-To).
        email: original.to_address.toLowerCase(),
        feedbackType: c.feedbackType,
        enrollmentId: original.enrollment_id,
        campaignId: original.campaign_id,
      });
    }

    const kind: MessageKind = c.kind;
    const from = mail.from?.value?.[0]?.address ?? mail.from?.text ?? 'unknown';
    const body = mail.text ?? (typeof mail.html === 'string' ? mail.html : null);
    const now = new Date();
    const messageRowId = await this.inbound.insertInbound(
      ws,
      {
        threadId: original.thread_id,
        enrollmentId: original.enrollment_id,
        kind,
        from: storable(from.toLowerCase()),
        to: inbox.email,
        subject: mail.subject ? storable(mail.subject) : null,
        body: body ? storable(body.slice(0, MAX_BODY_CHARS)) : null,
        messageId: ownId,
        inReplyTo: typeof mail.inReplyTo === 'string' ? storable(mail.inReplyTo.trim().slice(0, 998)) : null,
        receivedAt: now,
      },
      m,
    );

    const campaignId = original.campaign_id;
    switch (c.kind) {
      case 'reply': {
        const policy = campaignId
          ? await this.inbound.replyPolicy(ws, campaignId, m)
          : { stopOnReply: true, scope: 'contact' as const };
        if (original.enrollment_id !== null && policy.stopOnReply) {
          await stopEnrollment(m, ws, original.enrollment_id, 'replied');
        }
        // Stop on reply for the whole company: the replier's domain, never a free-mail one.
        const domain = emailDomain(from);
        if (
          campaignId &&
          policy.stopOnReply &&
          policy.scope === 'domain' &&
          domain &&
          !isFreeMailDomain(domain)
        ) {
          await stopCompanyOnReply(m, ws, campaignId, domain, from.toLowerCase());
        }
        await this.inbound.markContactReplied(ws, original.contact_id, m);
        if (campaignId) {
          await bumpMetric(m, ws, campaignId, 'replied', 1, now);
          // Counted for the variant of the last message sent in the thread.
          await bumpStepMetric(m, ws, campaignId, 'replied', { threadId: original.thread_id }, now);
        }
        const message = await this.inbound.findMessage(ws, messageRowId, m);
        await recordEvent(m, {
          workspaceId: ws,
          type: 'email.replied',
          data: {
            message: toMessageEventView(message),
            enrollment_id: original.enrollment_id,
            campaign_id: campaignId,
            contact_id: original.contact_id,
          },
        });
        break;
      }
      case 'auto_reply':
        if (campaignId) await bumpMetric(m, ws, campaignId, 'auto_replied', 1, now);
        break;
      case 'bounce':
        if (c.bounceType === 'policy') {
          // 5.7.x: the receiving side refused us by policy (reputation, authentication), not the
          // address. Recorded on the inbox for a person to look at; nothing is paused or suppressed.
          await this.inbound.noteInboxError(
            ws,
            inbox.id,
            storable(`policy rejection ${c.statusCode}: ${(c.diagnostic ?? '').slice(0, 300)}`),
            m,
          );
        }
        break;
      case 'complaint':
        break; // suppressed, stopped, counted and announced above (recordComplaint)
    }
    const classification = c.kind === 'bounce' ? `${c.bounceType}_bounce` : c.kind;
    logger.info({ inboxId: inbox.id, kind, classification }, 'ingest: mail recorded');
    return { status: 'recorded', kind, classification, message_id: messageRowId };
  }
}
