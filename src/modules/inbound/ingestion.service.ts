/**
 * One pipeline for every incoming mail, whether it was polled over IMAP or posted to
 * `POST /inbound/{inbox_id}`: parse (mailparser), read it (reading/: a bounce in any common format,
 * a complaint in any wrapping, an auto-reply, a delivery notice or a person's reply), match it to the
 * sent message it is about (a quoted Message-ID; only for a report that quotes none, its failed
 * recipient against what this inbox sent in the last 30 days), and apply the effect in one transaction with its
 * event and metric (docs/mail-reading.md).
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
import { MetricCounters } from '../analytics/metrics.js';
import { ContactWritesRepository } from '../contacts/contact-writes.repository.js';
import { Outbox } from '../events/outbox.js';
import type { Inbox } from '../inboxes/entities/inbox.entity.js';
import type { MessageKind } from '../threads/entities/message.entity.js';
import { referencedMessageIds } from '../mail-reading/references.js';
import { readMail } from '../mail-reading/read-mail.js';
import type { BounceVerdict, MailReading } from '../mail-reading/types.js';
import { toBounceView, type BounceView } from '../mail-reading/bounce.view.js';
import { Reactions } from '../reactions/reactions.js';
import { emailDomain, isFreeMailDomain } from '../../common/email/free-mail.js';
import { toMessageEventView } from '../threads/message.view.js';
import { InboxStateRepository } from '../inboxes/inbox-state.repository.js';
import { InboundRepository, type OriginalMessage } from './inbound.repository.js';
import { MessageWritesRepository } from '../threads/message-writes.repository.js';
import { notifyReplyRecorded } from '../reply-categories/reply-recorded.js';
import { replyText } from '../mail-reading/reply-text.js';

/** Bodies kept for inbound mail are cut here (the raw mail is not stored). */
const MAX_BODY_CHARS = 200_000;
/**
 * How long the ingesting transaction waits for a row or table lock before giving up (a transient
 * failure, tried again later) instead of holding an IMAP poll or an MTA pipe indefinitely.
 */
const INGEST_LOCK_TIMEOUT = '5s';

/** PostgreSQL text cannot hold NUL: dropped from what is stored, so such a mail is not unstorable. */
const storable = (s: string): string => (s.includes('\0') ? s.replaceAll('\0', '') : s);

/** What the mail was read as (the inbound route's answer says it). */
export type ReadAs = MailReading['kind'] | 'unparseable';

export type IngestResult =
  | { status: 'ignored'; reason: string; read_as: ReadAs }
  | { status: 'duplicate'; message_id: number; read_as: ReadAs }
  | {
      status: 'recorded';
      kind: MessageKind;
      classification: string;
      read_as: ReadAs;
      message_id: number;
      bounce?: BounceView;
    };

/** A report without a quoted Message-ID is matched by recipient against sends of this many days. */
export const RECIPIENT_MATCH_DAYS = 30;
/** At most this many failed recipients of one report are tried for a match. */
const MAX_RECIPIENTS_TRIED = 10;

@Injectable()
export class IngestionService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly inbound: InboundRepository,
    private readonly inboxes: InboxStateRepository,
    private readonly messages: MessageWritesRepository,
    private readonly contacts: ContactWritesRepository,
    private readonly reactions: Reactions,
    private readonly counters: MetricCounters,
    private readonly outbox: Outbox,
  ) {}

  async ingest(inbox: Pick<Inbox, 'id' | 'workspaceId' | 'email'>, raw: Buffer): Promise<IngestResult> {
    let mail: ParsedMail;
    try {
      mail = await simpleParser(raw, { skipImageLinks: true, maxHtmlLengthToParse: 2_000_000 });
    } catch (err) {
      logger.info({ inboxId: inbox.id, err: String(err) }, 'ingest: unparseable mail ignored');
      return { status: 'ignored', reason: 'unparseable', read_as: 'unparseable' };
    }
    const reading = readMail(mail, raw);
    const readAs = reading.kind;
    if (reading.kind === 'delivery_notice') {
      return this.ignore(inbox, 'a delivery notice (delivered or delayed), not a failure', readAs);
    }
    const report = reading.kind === 'bounce' || reading.kind === 'complaint';
    const refs = [
      ...new Set([...(report ? reading.originalMessageIds : []), ...referencedMessageIds(mail, raw, report)]),
    ]
      .filter((r) => !r.includes('\0') && r.length <= 998)
      .slice(0, 100);
    let original = refs.length ? await this.inbound.findOriginal(inbox.workspaceId, refs) : undefined;
    // By recipient only when the report quotes no Message-ID at all: one that quotes a Message-ID the
    // service never sent is about someone else's mail (or forged), whoever it names (CONTRACT §26).
    if (!original && report && reading.originalMessageIds.length === 0)
      original = await this.matchByRecipient(inbox, reading);
    if (!original && reading.kind === 'complaint') {
      // Recorded in the log (what was reported, about which Message-IDs) and ignored: nothing to suppress.
      logger.warn(
        { inboxId: inbox.id, feedbackType: reading.feedbackType, reported: refs.slice(0, 5) },
        'ingest: complaint matches no sent message; ignored',
      );
      return { status: 'ignored', reason: 'complaint matches no sent message', read_as: readAs };
    }
    if (!original) {
      return this.ignore(
        inbox,
        refs.length === 0 && !report ? 'no references to a sent message' : 'matches no sent message',
        readAs,
      );
    }
    const ownId =
      mail.messageId && /^<[^>\s\0]+>$/.test(mail.messageId.trim())
        ? mail.messageId.trim()
        : `<${createHash('sha256').update(raw).digest('hex')}@inbound.invalid>`;
    const matched = original;
    const result = await this.ds.transaction((m) => this.apply(m, inbox, mail, reading, matched, ownId));
    // Its category is decided after the commit, by the reply-categorize sweep (CONTRACT §20).
    if (result.status === 'recorded' && result.kind === 'reply') notifyReplyRecorded();
    return result;
  }

  /** A report's failed recipients (or a complaint's) against what this inbox sent them lately. */
  private async matchByRecipient(
    inbox: Pick<Inbox, 'id' | 'workspaceId'>,
    reading: Extract<MailReading, { kind: 'bounce' | 'complaint' }>,
  ): Promise<OriginalMessage | undefined> {
    const addresses =
      reading.kind === 'bounce' ? reading.recipients.map((r) => r.address) : [reading.recipient];
    const tried = new Set<string>();
    for (const address of addresses) {
      const a = address?.trim().toLowerCase();
      if (!a || tried.has(a) || a.includes('\0') || a.length > 320 || !a.includes('@')) continue;
      tried.add(a);
      if (tried.size > MAX_RECIPIENTS_TRIED) break;
      const found = await this.inbound.findLatestSentTo(inbox.workspaceId, inbox.id, a, RECIPIENT_MATCH_DAYS);
      if (found) return found;
    }
    return undefined;
  }

  private ignore(inbox: Pick<Inbox, 'id'>, reason: string, readAs: ReadAs): IngestResult {
    logger.info({ inboxId: inbox.id, reason, readAs }, 'ingest: mail ignored');
    return { status: 'ignored', reason, read_as: readAs };
  }

  /**
   * The verdict about the address the message went to (else the report's first recipient); of several
   * about one address, the one that says the most (a status, a code, a diagnostic).
   */
  private verdictFor(reading: Extract<MailReading, { kind: 'bounce' }>, to: string): BounceVerdict {
    const lower = to.toLowerCase();
    const about = reading.recipients.filter((r) => r.address?.toLowerCase() === lower);
    const candidates = about.length ? about : reading.recipients;
    const weight = (r: BounceVerdict) =>
      (r.status ? 4 : 0) + (r.smtpCode ? 2 : 0) + (r.diagnostic ? 1 : 0) + (r.reason !== 'undefined' ? 8 : 0);
    return candidates.reduce((best, r) => (weight(r) > weight(best) ? r : best), candidates[0]);
  }

  private async apply(
    m: EntityManager,
    inbox: Pick<Inbox, 'id' | 'workspaceId' | 'email'>,
    mail: ParsedMail,
    c: Exclude<MailReading, { kind: 'delivery_notice' }>,
    original: OriginalMessage,
    ownId: string,
  ): Promise<IngestResult> {
    const ws = inbox.workspaceId;
    // The same mail may arrive over IMAP and the inbound route at once: serialise on its Message-ID.
    await this.inbound.lockMessageId(ws, ownId, INGEST_LOCK_TIMEOUT, m);
    const dup = await this.inbound.findInboundId(ws, ownId, m);
    if (dup !== null) return { status: 'duplicate', message_id: dup, read_as: c.kind };

    const email = original.to_address.toLowerCase();
    let bounce: BounceView | undefined;
    if (c.kind === 'bounce') {
      // One sent message bounces at most once: a second (or forged) report about it changes nothing.
      if (await this.messages.lockBounce(ws, original.id, m)) {
        logger.info({ inboxId: inbox.id, messageRowId: original.id }, 'ingest: message already bounced');
        return {
          status: 'ignored',
          reason: 'the sent message already bounced: a second report about it changes nothing',
          read_as: c.kind,
        };
      }
      bounce = toBounceView(this.verdictFor(c, email));
    }

    const kind: MessageKind = c.kind;
    const from = mail.from?.value?.[0]?.address ?? mail.from?.text ?? 'unknown';
    const body = mail.text ?? (typeof mail.html === 'string' ? mail.html : null);
    const now = new Date();
    const messageRowId = await this.messages.insertInbound(
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
        bounce: bounce ?? null,
      },
      m,
    );

    const campaignId = original.campaign_id;
    switch (c.kind) {
      case 'reply': {
        const policy = campaignId
          ? await this.inbound.replyPolicy(ws, campaignId, m)
          : { stopOnReply: true, scope: 'contact' as const };
        // Stop on reply for the whole company: the domain of the address the message went to (a
        // reply's From can be anything), never a free-mail one.
        const domain = emailDomain(email);
        await this.reactions.afterReply(m, {
          workspaceId: ws,
          enrollmentId: original.enrollment_id,
          campaignId,
          email,
          policy,
          companyDomain: domain && !isFreeMailDomain(domain) ? domain : null,
        });
        await this.contacts.markReplied(ws, original.contact_id, m);
        if (campaignId) {
          await this.counters.bump(m, ws, campaignId, 'replied', 1, now);
          // Counted for the variant of the last message sent in the thread.
          await this.counters.bumpStep(m, ws, campaignId, 'replied', { threadId: original.thread_id }, now);
        }
        const message = await this.inbound.findMessage(ws, messageRowId, m);
        await this.outbox.record(m, {
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
        if (campaignId) await this.counters.bump(m, ws, campaignId, 'auto_replied', 1, now);
        // An away notice holds the next step (its own words: the quoted history removed).
        await this.reactions.afterAutoReply(m, {
          workspaceId: ws,
          enrollmentId: original.enrollment_id,
          subject: mail.subject ?? '',
          ownWords: replyText(body ?? ''),
          replyDate: mail.date && !Number.isNaN(mail.date.getTime()) ? mail.date : now,
          fromRecipient: from.toLowerCase() === email,
        });
        break;
      case 'bounce': {
        const verdict = bounce!;
        // Suppression takes the workspace's suppression lock before any contact row is touched.
        const { senderSide } = await this.reactions.afterBounce(m, {
          workspaceId: ws,
          contactId: original.contact_id,
          // The address we sent to (a forwarding hop may report another Final-Recipient).
          email,
          enrollmentId: original.enrollment_id,
          campaignId,
          messageRowId: original.id,
          verdict,
        });
        if (senderSide) {
          // The receiving side refused the sender (reputation, authentication, policy), not the
          // address: shown on the inbox and announced, never counted against the contact.
          const error = storable(
            `${verdict.reason} bounce${verdict.status ? ` ${verdict.status}` : ''} from ${email.split('@')[1] ?? email}: ${(verdict.diagnostic ?? '').slice(0, 300)}`,
          );
          const noted = await this.inboxes.noteError(ws, inbox.id, error, m);
          if (noted) {
            await this.outbox.record(m, {
              workspaceId: ws,
              type: 'inbox.error',
              data: { inbox_id: inbox.id, email: noted.email, status: noted.status, error },
            });
          }
        }
        break;
      }
      case 'complaint':
        // `not-spam` is the opposite of a complaint: recorded in the thread, nothing suppressed.
        if (c.feedbackType !== 'not-spam') {
          await this.reactions.afterComplaint(m, {
            workspaceId: ws,
            contactId: original.contact_id,
            // The address we sent to (reporters often redact Original-Rcpt-To).
            email,
            feedbackType: c.feedbackType,
            enrollmentId: original.enrollment_id,
            campaignId,
          });
        }
        break;
    }
    const classification =
      c.kind === 'bounce'
        ? `${bounce!.hard ? 'hard' : 'soft'}_bounce`
        : c.kind === 'complaint' && c.feedbackType === 'not-spam'
          ? 'not_spam'
          : c.kind;
    logger.info({ inboxId: inbox.id, kind, classification }, 'ingest: mail recorded');
    return {
      status: 'recorded',
      kind,
      classification,
      read_as: c.kind,
      message_id: messageRowId,
      ...(bounce ? { bounce } : {}),
    };
  }
}
