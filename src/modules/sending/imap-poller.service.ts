/**
 * Polls the INBOX of every inbox that has IMAP settings (imapflow), from a UID checkpoint
 * (`imap_uid_validity`, `imap_last_uid`), feeding each new mail to the ingestion pipeline. One poller
 * per inbox at a time across processes (a PostgreSQL advisory lock). The checkpoint moves past every
 * mail handed to the pipeline, even one it could not use, so a bad mail never loops.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ImapFlow } from 'imapflow';
import type { DataSource } from 'typeorm';
import { logger } from '../../common/logging/logger.js';
import { Inbox } from '../inboxes/entities/inbox.entity.js';
import { openSettings } from '../inboxes/inbox-credentials.js';
import { IngestionService } from './ingestion.service.js';
import { rows } from '../../database/query-rows.js';

/** Mails fetched per inbox and poll; the rest waits for the next poll. */
export const IMAP_BATCH = 200;
/** Consecutive failed polls before the inbox's `last_error` shows it (a blip is only logged). */
export const IMAP_FAILURES_BEFORE_ERROR = 3;

@Injectable()
export class ImapPoller {
  private readonly failures = new Map<string, number>();

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly ingestion: IngestionService,
  ) {}

  /** Polls every inbox with IMAP settings once. */
  async pollAll(): Promise<void> {
    const inboxes = await rows<{ id: string }>(
      this.ds.manager,
      'SELECT id FROM inboxes WHERE imap_sealed IS NOT NULL ORDER BY id',
    );
    for (const { id } of inboxes) {
      try {
        await this.pollInbox(id);
        this.failures.delete(id);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        const failures = (this.failures.get(id) ?? 0) + 1;
        this.failures.set(id, failures);
        logger.warn({ inboxId: id, err: message, failures }, 'imap: poll failed');
        if (failures >= IMAP_FAILURES_BEFORE_ERROR) {
          await this.ds.query('UPDATE inboxes SET last_error = $2, last_error_at = now() WHERE id = $1', [
            id,
            `imap: ${message.slice(0, 300)}`,
          ]);
        }
      }
    }
  }

  /** Polls one inbox; returns how many mails were handed to the pipeline (-1 when another process holds it). */
  async pollInbox(inboxId: string): Promise<number> {
    const runner = this.ds.createQueryRunner();
    await runner.connect();
    const lockKey = `imap:${inboxId}`;
    try {
      const [got] = (await runner.query('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok', [
        lockKey,
      ])) as Array<{ ok: boolean }>;
      if (!got.ok) return -1;
      try {
        return await this.pollLocked(inboxId);
      } finally {
        await runner.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [lockKey]);
      }
    } finally {
      await runner.release();
    }
  }

  private async pollLocked(inboxId: string): Promise<number> {
    const inbox = await this.ds.getRepository(Inbox).findOne({ where: { id: inboxId } });
    if (!inbox?.imapSealed) return 0;
    const s = openSettings(inbox.imapSealed, inbox.id, 'imap');
    const client = new ImapFlow({
      host: s.host,
      port: s.port,
      secure: s.secure,
      auth: { user: s.user ?? '', pass: s.password ?? '' },
      logger: false,
      connectionTimeout: 30_000,
      greetingTimeout: 30_000,
      socketTimeout: 120_000,
    });
    client.on('error', (err: Error) => logger.warn({ inboxId, err: err.message }, 'imap: connection error'));
    await client.connect();
    let handled = 0;
    try {
      const mailbox = await client.mailboxOpen('INBOX', { readOnly: true });
      const validity = String(mailbox.uidValidity);
      let last = inbox.imapUidValidity === validity ? (inbox.imapLastUid ?? 0) : 0;
      if (inbox.imapUidValidity !== validity) {
        // A new mailbox generation: UIDs restart, so does the checkpoint.
        await this.checkpoint(inbox.id, validity, 0);
      }
      const found = await client.search({ uid: `${last + 1}:*` }, { uid: true });
      const uids = (Array.isArray(found) ? found : []).filter((u) => u > last).sort((a, b) => a - b);
      const batch = uids.slice(0, IMAP_BATCH);
      if (batch.length === 0) return 0;
      const fetched = await client.fetchAll(batch.join(','), { uid: true, source: true }, { uid: true });
      fetched.sort((a, b) => a.uid - b.uid);
      for (const msg of fetched) {
        if (msg.uid <= last) continue;
        if (msg.source) {
          try {
            await this.ingestion.ingest(inbox, msg.source);
          } catch (err) {
            logger.error(
              { inboxId, uid: msg.uid, err: err instanceof Error ? err.message : String(err) },
              'imap: mail skipped',
            );
          }
        }
        last = msg.uid;
        handled += 1;
        await this.checkpoint(inbox.id, validity, last);
      }
    } finally {
      await client.logout().catch(() => client.close());
    }
    return handled;
  }

  private async checkpoint(inboxId: string, validity: string, lastUid: number): Promise<void> {
    await this.ds.query('UPDATE inboxes SET imap_uid_validity = $2, imap_last_uid = $3 WHERE id = $1', [
      inboxId,
      validity,
      lastUid,
    ]);
  }
}
