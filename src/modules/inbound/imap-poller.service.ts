/**
 * Polls the INBOX of every inbox that has IMAP settings (imapflow), from a UID checkpoint
 * (`imap_uid_validity`, `imap_last_uid`), feeding each new mail to the ingestion pipeline
 * :
 *
 * - **Size first.** A poll asks the server for the sizes (RFC822.SIZE) of the next mails, then
 *   downloads them one at a time. A mail over 10 MiB is never downloaded: it is skipped, counted on
 *   the inbox (`imap_skipped_oversize`, in the statement that moves the checkpoint past it) and logged.
 *   The download itself is a partial fetch of at most 10 MiB + 1 byte, so a server that misstates a
 *   size cannot make the poller read more.
 * - **Concurrent, with a deadline.** Inboxes are polled IMAP_POLL_CONCURRENCY at a time; one inbox's
 *   poll that is not done within IMAP_POLL_DEADLINE_SECONDS is abandoned (its connection closed, its
 *   checkpoint left where its last finished mail put it) and tried again next round.
 * - **The checkpoint moves only past settled mail**: ingested (or a duplicate), or permanently
 *   rejected (unparseable, unmatched, over size, gone from the mailbox). A transient failure
 *   (`isTransientFailure`: database down, connection lost, lock timeout) or a lost IMAP connection
 *   stops the poll at that mail, which the next poll reads again. Ingestion is idempotent by
 *   Message-ID, so reading a mail again never records it twice.
 *
 * One poller per inbox at a time across processes: a PostgreSQL advisory lock, held by the poll's
 * work (not by the deadline) until it has stopped, so an abandoned poll never runs beside the next.
 */
import { Injectable } from '@nestjs/common';
import { ImapFlow } from 'imapflow';
import { MiB } from '../../common/http/body-reader.js';
import { logger } from '../../common/logging/logger.js';
import { countImapPoll } from '../../common/metrics/metrics.js';
import { appConfig } from '../../config/app-config.js';
import type { Inbox } from '../inboxes/entities/inbox.entity.js';
import { openSettings } from '../inboxes/inbox-credentials.js';
import { InboundRepository } from './inbound.repository.js';
import { IngestionService } from './ingestion.service.js';
import { isTransientFailure } from './transient-failure.js';

/** Mails looked at per inbox and poll; the rest waits for the next poll. */
export const IMAP_BATCH = 200;
/** Consecutive failed polls before the inbox's `last_error` shows it (a blip is only logged). */
export const IMAP_FAILURES_BEFORE_ERROR = 3;
/** Mail over this size is skipped unread. Same limit as `POST /inbound/{id}`. */
export const IMAP_MAX_MESSAGE_BYTES = 10 * MiB;

/** What one inbox's poll came to. */
export type PollOutcome =
  | { status: 'polled'; ingested: number; rejected: number; skipped: number }
  | { status: 'busy' | 'not_polled' }
  | { status: 'abandoned' }
  | { status: 'failed'; error: string };

/** Set when the deadline passed: the work stops at its next step; `close` drops the connection. */
interface Abandon {
  abandoned: boolean;
  close?: () => void;
}

/** A mail could not be settled now; the poll stops before it and the next poll reads it again. */
class RetryLater extends Error {}

@Injectable()
export class ImapPoller {
  private readonly failures = new Map<string, number>();

  constructor(
    private readonly inbound: InboundRepository,
    private readonly ingestion: IngestionService,
  ) {}

  /**
   * Polls every inbox with IMAP settings once, IMAP_POLL_CONCURRENCY at a time, each within
   * IMAP_POLL_DEADLINE_SECONDS. Resolves when every inbox has finished or been abandoned.
   */
  async pollAll(): Promise<Map<string, PollOutcome>> {
    const { imapPollConcurrency, imapPollDeadlineSeconds } = appConfig();
    const inboxes = (await this.inbound.inboxIdsToPollAcrossWorkspaces()).map((id: string) => ({ id }));
    const outcomes = new Map<string, PollOutcome>();
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < inboxes.length) {
        const { id } = inboxes[next++];
        const outcome = await this.pollWithDeadline(id, imapPollDeadlineSeconds * 1000);
        outcomes.set(id, outcome);
        countImapPoll(outcome.status);
        await this.noteOutcome(id, outcome);
      }
    };
    await Promise.all(Array.from({ length: Math.min(imapPollConcurrency, inboxes.length) }, lane));
    return outcomes;
  }

  /** One inbox's poll, abandoned when it is not done after `deadlineMs`. */
  async pollWithDeadline(inboxId: string, deadlineMs: number): Promise<PollOutcome> {
    const abandon: Abandon = { abandoned: false };
    const work = this.pollInbox(inboxId, abandon).catch((err: unknown): PollOutcome => ({
      status: 'failed',
      error: err instanceof Error ? err.message : String(err),
    }));
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'deadline'>((resolve) => {
      timer = setTimeout(() => resolve('deadline'), deadlineMs);
    });
    const first = await Promise.race([work, deadline]);
    clearTimeout(timer);
    if (first !== 'deadline') return first;
    abandon.abandoned = true;
    abandon.close?.();
    void work.then((late) => {
      if (late.status === 'failed') {
        logger.info({ inboxId, err: late.error }, 'imap: abandoned poll ended');
      }
    });
    return { status: 'abandoned' };
  }

  /** Polls one inbox under its advisory lock ('busy' when another poll holds it). */
  async pollInbox(inboxId: string, abandon: Abandon = { abandoned: false }): Promise<PollOutcome> {
    const outcome = await this.inbound.withInboxLockAcrossWorkspaces(inboxId, () =>
      this.pollLocked(inboxId, abandon),
    );
    return outcome === 'busy' ? { status: 'busy' } : outcome;
  }

  private async pollLocked(inboxId: string, abandon: Abandon): Promise<PollOutcome> {
    const inbox = await this.inbound.findInboxAcrossWorkspaces(inboxId);
    if (!inbox?.imapSealed || abandon.abandoned) return { status: 'not_polled' };
    const s = openSettings(inbox.imapSealed, inbox.id, 'imap');
    const timeout = appConfig().imapPollDeadlineSeconds * 1000;
    const client = new ImapFlow({
      host: s.host,
      port: s.port,
      secure: s.secure,
      auth: { user: s.user ?? '', pass: s.password ?? '' },
      logger: false,
      // The deadline closes the connection; these only make sure nothing waits longer on its own.
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
      // A server cannot push more than one allowed mail (plus framing) into memory.
      maxLiteralSize: IMAP_MAX_MESSAGE_BYTES + 1,
      maxResponseSize: IMAP_MAX_MESSAGE_BYTES + 4 * MiB,
    });
    client.on('error', (err: Error) => logger.warn({ inboxId, err: err.message }, 'imap: connection error'));
    abandon.close = () => client.close();
    const counts = { ingested: 0, rejected: 0, skipped: 0 };
    try {
      await client.connect();
      const mailbox = await client.mailboxOpen('INBOX', { readOnly: true });
      const validity = String(mailbox.uidValidity);
      // bigint column: read as a number (src/database/int8.ts), compared as text.
      const sameGeneration = inbox.imapUidValidity != null && String(inbox.imapUidValidity) === validity;
      const last = sameGeneration ? (inbox.imapLastUid ?? 0) : 0;
      if (!sameGeneration) {
        // A new mailbox generation: UIDs restart, so does the checkpoint.
        await this.inbound.resetCheckpointAcrossWorkspaces(inbox.id, validity);
      }
      const found = await client.search({ uid: `${last + 1}:*` }, { uid: true });
      const uids = (Array.isArray(found) ? found : []).filter((u) => u > last).sort((a, b) => a - b);
      const batch = uids.slice(0, IMAP_BATCH);
      if (batch.length === 0) return { status: 'polled', ...counts };
      // Sizes only: nothing of a mail's content is read before its size is known.
      const listed = await client.fetchAll(batch.join(','), { uid: true, size: true }, { uid: true });
      listed.sort((a, b) => a.uid - b.uid);
      for (const { uid, size } of listed) {
        if (abandon.abandoned) break;
        if (uid <= last) continue;
        const settled = await this.settle(client, inbox, uid, size);
        counts[settled] += 1;
        await this.advance(inbox.id, validity, uid, settled === 'skipped');
      }
      return { status: 'polled', ...counts };
    } catch (err) {
      if (abandon.abandoned) return { status: 'abandoned' };
      throw err;
    } finally {
      if (client.usable) await client.logout().catch(() => client.close());
      else client.close();
    }
  }

  /**
   * Reads and ingests one mail; says how it was settled. Throws (stopping the poll before this mail)
   * when it could not be settled now: the IMAP connection failed, or ingestion failed transiently.
   */
  private async settle(
    client: ImapFlow,
    inbox: Inbox,
    uid: number,
    size: number | undefined,
  ): Promise<'ingested' | 'rejected' | 'skipped'> {
    if (typeof size === 'number' && size > IMAP_MAX_MESSAGE_BYTES) {
      logger.warn({ inboxId: inbox.id, uid, size }, 'imap: mail over the size limit skipped unread');
      return 'skipped';
    }
    const msg = await client.fetchOne(
      String(uid),
      { uid: true, source: { start: 0, maxLength: IMAP_MAX_MESSAGE_BYTES + 1 } },
      { uid: true },
    );
    if (!msg || !msg.source) {
      logger.info({ inboxId: inbox.id, uid }, 'imap: mail gone from the mailbox before it was read');
      return 'rejected';
    }
    if (msg.source.length > IMAP_MAX_MESSAGE_BYTES) {
      logger.warn(
        { inboxId: inbox.id, uid, size: msg.source.length },
        'imap: mail over the size limit (size misstated) skipped',
      );
      return 'skipped';
    }
    try {
      const result = await this.ingestion.ingest(inbox, msg.source);
      return result.status === 'ignored' ? 'rejected' : 'ingested';
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (isTransientFailure(err)) {
        logger.warn(
          { inboxId: inbox.id, uid, err: message },
          'imap: ingestion failed, mail kept for the next poll',
        );
        throw new RetryLater(`ingestion of UID ${uid} failed transiently: ${message}`);
      }
      logger.error(
        { inboxId: inbox.id, uid, err: message },
        'imap: mail rejected (ingestion failed permanently)',
      );
      return 'rejected';
    }
  }

  /** Moves the checkpoint past `uid` (never back, never across a UIDVALIDITY change); counts a skip. */
  private async advance(inboxId: string, validity: string, uid: number, skipped: boolean): Promise<void> {
    await this.inbound.advanceCheckpointAcrossWorkspaces(inboxId, validity, uid, skipped);
  }

  /** A blip is only logged; IMAP_FAILURES_BEFORE_ERROR failed polls in a row show on the inbox. */
  private async noteOutcome(inboxId: string, outcome: PollOutcome): Promise<void> {
    if (outcome.status !== 'failed' && outcome.status !== 'abandoned') {
      if (outcome.status !== 'busy') this.failures.delete(inboxId);
      return;
    }
    const message =
      outcome.status === 'failed'
        ? outcome.error
        : `no answer within ${appConfig().imapPollDeadlineSeconds} s (poll abandoned)`;
    const failures = (this.failures.get(inboxId) ?? 0) + 1;
    this.failures.set(inboxId, failures);
    logger.warn({ inboxId, err: message, failures }, 'imap: poll failed');
    if (failures >= IMAP_FAILURES_BEFORE_ERROR) {
      await this.inbound
        .noteInboxErrorAcrossWorkspaces(inboxId, `imap: ${message.slice(0, 300)}`)
        .catch((err: unknown) =>
          logger.warn(
            { inboxId, err: err instanceof Error ? err.message : String(err) },
            'imap: last_error not saved',
          ),
        );
    }
  }
}
