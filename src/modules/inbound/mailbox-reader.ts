/**
 * Reads one mailbox over an open, selected IMAP connection from its UID checkpoint
 * (`imap_uid_validity`, `imap_last_uid`), feeding each new mail to `IngestionService.ingest`:
 *
 * - **Size first.** The sizes (RFC822.SIZE) of the next mails are asked for, then the mails are
 *   downloaded one at a time. A mail over 10 MiB is never downloaded: it is skipped, counted on the
 *   inbox (`imap_skipped_oversize`, in the statement that moves the checkpoint past it) and logged.
 *   The download itself is a partial fetch of at most 10 MiB + 1 byte.
 * - **The checkpoint moves only past settled mail**: ingested (or a duplicate), or permanently
 *   rejected (unparseable, unmatched, over size, gone from the mailbox). A transient failure
 *   (`isTransientFailure`) stops the read at that mail (`RetryLater`), which the next read takes
 *   again; ingestion is idempotent by Message-ID, so reading a mail again never records it twice.
 * - **A new UIDVALIDITY resets the checkpoint** (UIDs restart).
 * - **No database connection is held across IMAP I/O**: a mail is downloaded first, then ingested;
 *   ingestions run at most a quarter of the pool (DB_POOL_SIZE) at once per worker, so a burst of
 *   mail never starves the other loops of the pool.
 *
 * The checkpoint is read from the database at every read, so a checkpoint moved by hand (or lost in
 * a crash) is honoured at the next read.
 */
import { Injectable } from '@nestjs/common';
import type { ImapFlow } from 'imapflow';
import { logger } from '../../common/logging/logger.js';
import { observeImapArrival } from '../../common/metrics/metrics.js';
import { Slots } from '../../common/worker/slots.js';
import { appConfig } from '../../config/app-config.js';
import type { Inbox } from '../inboxes/entities/inbox.entity.js';
import { IMAP_MAX_MESSAGE_BYTES } from './imap-connection-options.js';
import { InboxStateRepository } from '../inboxes/inbox-state.repository.js';
import { InboundRepository } from './inbound.repository.js';
import { IngestionService } from './ingestion.service.js';
import { isTransientFailure } from './transient-failure.js';

/** Mails looked at per inbox and read; the rest is read right after. */
export const IMAP_BATCH = 200;

/** A mail could not be settled now; the read stops before it and the next read takes it again. */
export class RetryLater extends Error {}

/** What one read of a mailbox came to. */
export interface ReadOutcome {
  ingested: number;
  rejected: number;
  skipped: number;
  /** More mail is waiting than one batch took. */
  more: boolean;
}

/** Mailbox reading stops between mails when this says so (lease lost, shutdown, deadline). */
export type StillMine = () => boolean;

@Injectable()
export class MailboxReader {
  private readonly ingestSlots = new Slots(Math.max(1, Math.floor(appConfig().dbPoolSize / 4)));

  constructor(
    private readonly inbound: InboundRepository,
    private readonly ingestion: IngestionService,
    private readonly inboxes: InboxStateRepository,
  ) {}

  /** The inbox row (null when it is gone or no longer read over IMAP: no settings, or `transport: api`). */
  async inbox(inboxId: string): Promise<Inbox | null> {
    const inbox = await this.inbound.findInboxAcrossWorkspaces(inboxId);
    return inbox?.imapSealed && inbox.transport !== 'api' ? inbox : null;
  }

  /** Reads what is new in the open INBOX of `client` for `inbox` (fresh from `this.inbox`). */
  async read(client: ImapFlow, inbox: Inbox, stillMine: StillMine): Promise<ReadOutcome> {
    const counts: ReadOutcome = { ingested: 0, rejected: 0, skipped: 0, more: false };
    const mailbox = client.mailbox;
    if (!mailbox) throw new Error('no mailbox selected');
    const validity = String(mailbox.uidValidity);
    // bigint column: read as a number (src/database/int8.ts), compared as text.
    const sameGeneration = inbox.imapUidValidity != null && String(inbox.imapUidValidity) === validity;
    const last = sameGeneration ? (inbox.imapLastUid ?? 0) : 0;
    if (!sameGeneration) {
      // A new mailbox generation: UIDs restart, so does the checkpoint.
      await this.inboxes.resetCheckpointAcrossWorkspaces(inbox.id, validity);
    }
    const found = await client.search({ uid: `${last + 1}:*` }, { uid: true });
    const uids = (Array.isArray(found) ? found : []).filter((u) => u > last).sort((a, b) => a - b);
    const batch = uids.slice(0, IMAP_BATCH);
    counts.more = uids.length > IMAP_BATCH;
    if (batch.length === 0) return counts;
    // Sizes only: nothing of a mail's content is read before its size is known.
    const listed = await client.fetchAll(
      batch.join(','),
      { uid: true, size: true, internalDate: true },
      { uid: true },
    );
    listed.sort((a, b) => a.uid - b.uid);
    for (const { uid, size, internalDate } of listed) {
      if (!stillMine()) {
        counts.more = true;
        break;
      }
      if (uid <= last) continue;
      const settled = await this.settle(client, inbox, uid, size);
      counts[settled] += 1;
      await this.inboxes.advanceCheckpointAcrossWorkspaces(inbox.id, validity, uid, settled === 'skipped');
      if (settled === 'ingested' && internalDate) observeImapArrival(new Date(internalDate));
    }
    return counts;
  }

  /**
   * Reads and ingests one mail; says how it was settled. Throws (stopping the read before this mail)
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
    const source = msg.source;
    try {
      const result = await this.ingestSlots.run(() => this.ingestion.ingest(inbox, source));
      return result.status === 'ignored' ? 'rejected' : 'ingested';
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (isTransientFailure(err)) {
        logger.warn(
          { inboxId: inbox.id, uid, err: message },
          'imap: ingestion failed, mail kept for the next read',
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
}
