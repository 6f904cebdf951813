/**
 * Every write to `messages` and `threads` made on behalf of other modules (the threads module owns
 * both tables): the send path's drafts and their resolution, manual replies, inbound mail, bounce
 * marks. Batch statements of the send path span workspaces (`…AcrossWorkspaces`; each row carries its
 * own); the others take the workspace id first. Hand-written SQL, each batch one statement whatever
 * its size (arrays unnested): this is the hottest path of the service. Every method but the SMTP-start
 * mark runs in the caller's transaction (its manager).
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { rows } from '../../database/query-rows.js';
import type { BounceView } from '../mail-reading/bounce.view.js';
import type { MessageKind } from './entities/message.entity.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

/** What an outbound message carries (a send path step or a manual reply). */
interface OutboundMail {
  from: string;
  to: string;
  subject: string;
  body: string;
  messageId: string;
  inReplyTo: string | null;
}

/** One step of the send path to record: its thread (new when `threadId` is null) and `sending` message. */
export interface OutboundDraft extends OutboundMail {
  enrollmentId: number;
  workspaceId: WorkspaceId;
  inboxId: string;
  contactId: number;
  campaignId: number;
  threadId: number | null;
  stepPosition: number;
  variant: string;
}

/** A manual reply (`POST /threads/{id}/messages`) about to enter SMTP. */
export interface ManualRecord extends OutboundMail {
  threadId: number;
  enrollmentId: number | null;
  idempotencyKey: string | null;
}

/** An inbound message (reply, auto-reply, bounce report) matched to a thread. */
export interface InboundMessageRow {
  threadId: number;
  enrollmentId: number | null;
  kind: MessageKind;
  from: string;
  to: string;
  subject: string | null;
  body: string | null;
  messageId: string;
  inReplyTo: string | null;
  receivedAt: Date;
  /** The verdict a bounce report carries. */
  bounce?: BounceView | null;
}

/** Threads (first steps) and `sending` messages of the send path's drafts, in one statement. */
const INSERT_DRAFTS_SQL = `
  WITH input AS (
    SELECT * FROM unnest($1::bigint[], $2::uuid[], $3::uuid[], $4::bigint[], $5::bigint[], $6::text[], $7::bigint[],
      $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::int[], $14::text[])
      AS x(enrollment_id, workspace_id, inbox_id, contact_id, campaign_id, subject, thread_id,
        from_address, to_address, body, message_id, in_reply_to, step_position, variant)
  ), new_thread AS (
    INSERT INTO threads (workspace_id, inbox_id, contact_id, enrollment_id, campaign_id, subject, message_count)
    SELECT workspace_id, inbox_id, contact_id, enrollment_id, campaign_id, subject, 0
    FROM input WHERE thread_id IS NULL
    RETURNING id, enrollment_id
  )
  INSERT INTO messages (workspace_id, thread_id, enrollment_id, direction, kind, from_address, to_address,
    subject, body, message_id, in_reply_to, status, step_position, variant)
  SELECT i.workspace_id, coalesce(i.thread_id, t.id), i.enrollment_id, 'outbound', 'email', i.from_address,
    i.to_address, i.subject, i.body, i.message_id, i.in_reply_to, 'sending', i.step_position, i.variant
  FROM input i LEFT JOIN new_thread t ON t.enrollment_id = i.enrollment_id
  RETURNING id, thread_id, enrollment_id`;

@Injectable()
export class MessageWritesRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  // The send path.

  /** Records drafts: their threads (first steps) and `sending` messages; ids by enrollment. */
  async insertDraftsAcrossWorkspaces(
    drafts: OutboundDraft[],
    m: EntityManager,
  ): Promise<Map<number, { id: number; threadId: number }>> {
    const inserted = await rows<{ id: number; thread_id: number; enrollment_id: number }>(
      m,
      INSERT_DRAFTS_SQL,
      [
        drafts.map((d) => d.enrollmentId),
        drafts.map((d) => d.workspaceId),
        drafts.map((d) => d.inboxId),
        drafts.map((d) => d.contactId),
        drafts.map((d) => d.campaignId),
        drafts.map((d) => d.subject),
        drafts.map((d) => d.threadId),
        drafts.map((d) => d.from),
        drafts.map((d) => d.to),
        drafts.map((d) => d.body),
        drafts.map((d) => d.messageId),
        drafts.map((d) => d.inReplyTo),
        drafts.map((d) => d.stepPosition),
        drafts.map((d) => d.variant),
      ],
    );
    return new Map(
      inserted.map((x) => [Number(x.enrollment_id), { id: Number(x.id), threadId: Number(x.thread_id) }]),
    );
  }

  /**
   * Sets `smtp_started_at` on messages about to enter SMTP: only rows still `sending`, not begun, and
   * whose enrollment still carries this claim's token. Returns the ids marked. Runs on its own.
   */
  async markSmtpStartedAcrossWorkspaces(ids: number[], lease: Date): Promise<Set<number>> {
    const marked = await rows<{ id: number }>(
      this.ds.manager,
      `UPDATE messages m SET smtp_started_at = now()
       FROM enrollments e
       WHERE m.id = ANY($1::bigint[]) AND m.status = 'sending' AND m.smtp_started_at IS NULL
         AND e.id = m.enrollment_id AND e.next_step_at = $2
       RETURNING m.id`,
      [ids, lease],
    );
    return new Set(marked.map((r) => Number(r.id)));
  }

  /** `sending` → `sent`; the rows changed, with their creation time. */
  markSentAcrossWorkspaces(
    messageRowIds: number[],
    at: Date,
    m: EntityManager,
  ): Promise<Array<{ id: number; created_at: Date }>> {
    return rows<{ id: number; created_at: Date }>(
      m,
      `UPDATE messages SET status = 'sent', sent_at = $2 WHERE id = ANY($1::bigint[]) AND status = 'sending'
       RETURNING id, created_at`,
      [messageRowIds, at],
    );
  }

  /** One more message per occurrence of a thread id; last activity `at`. */
  async countThreadMessagesAcrossWorkspaces(threadIds: number[], at: Date, m: EntityManager): Promise<void> {
    await m.query(
      `UPDATE threads t SET message_count = t.message_count + x.n, last_message_at = $2
       FROM (SELECT id, count(*)::int AS n FROM unnest($1::bigint[]) AS id GROUP BY id) x
       WHERE t.id = x.id`,
      [threadIds, at],
    );
  }

  /** The Message-ID a provider stored for a sent message instead of the service's own (its replies quote it). */
  async replaceMessageId(
    workspaceId: WorkspaceId,
    messageRowId: number,
    messageId: string,
    m?: EntityManager,
  ): Promise<void> {
    await (m ?? this.ds.manager).query(
      `UPDATE messages SET message_id = $3 WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, messageRowId, messageId],
    );
  }

  /** A `sending` message becomes `failed` with `error`. */
  async markFailed(
    workspaceId: WorkspaceId,
    messageRowId: number,
    error: string,
    m: EntityManager,
  ): Promise<void> {
    await m.query(
      `UPDATE messages SET status = 'failed', error = $3 WHERE workspace_id = $1 AND id = $2 AND status = 'sending'`,
      [workspaceId, messageRowId, error],
    );
  }

  /** Deletes a `sending` message whose SMTP conversation never began; false when it did. */
  async dropIfNeverStarted(
    workspaceId: WorkspaceId,
    messageRowId: number,
    m: EntityManager,
  ): Promise<boolean> {
    const dropped = await rows(
      m,
      `DELETE FROM messages WHERE workspace_id = $1 AND id = $2 AND status = 'sending' AND smtp_started_at IS NULL
       RETURNING id`,
      [workspaceId, messageRowId],
    );
    return dropped.length > 0;
  }

  /** Forgets a record that never reached the server: the `sending` row and its thread if left empty. */
  async dropSendingAndEmptyThread(
    workspaceId: WorkspaceId,
    messageRowId: number,
    threadId: number,
    m: EntityManager,
  ): Promise<void> {
    await m.query(`DELETE FROM messages WHERE workspace_id = $1 AND id = $2 AND status = 'sending'`, [
      workspaceId,
      messageRowId,
    ]);
    await m.query(
      `DELETE FROM threads t WHERE t.workspace_id = $1 AND t.id = $2 AND t.message_count = 0
         AND NOT EXISTS (SELECT 1 FROM messages x WHERE x.thread_id = t.id)`,
      [workspaceId, threadId],
    );
  }

  // Manual replies.

  /** Records a manual reply `sending` (its SMTP conversation begins now); its id. */
  async insertManualSending(workspaceId: WorkspaceId, r: ManualRecord, m: EntityManager): Promise<number> {
    const [inserted] = await rows<{ id: number }>(
      m,
      `INSERT INTO messages (workspace_id, thread_id, enrollment_id, direction, kind, from_address, to_address,
         subject, body, message_id, in_reply_to, status, smtp_started_at, idempotency_key)
       VALUES ($1, $2, $3, 'outbound', 'manual', $4, $5, $6, $7, $8, $9, 'sending', now(), $10)
       RETURNING id`,
      [
        workspaceId,
        r.threadId,
        r.enrollmentId,
        r.from,
        r.to,
        r.subject,
        r.body,
        r.messageId,
        r.inReplyTo,
        r.idempotencyKey,
      ],
    );
    return Number(inserted.id);
  }

  /** A manual reply `sending` → `sent`, counted on its thread; false when it was no longer `sending`. */
  async markManualSent(workspaceId: WorkspaceId, id: number, at: Date, m: EntityManager): Promise<boolean> {
    const updated = await rows<{ thread_id: number }>(
      m,
      `UPDATE messages SET status = 'sent', sent_at = $3
       WHERE workspace_id = $1 AND id = $2 AND status = 'sending' RETURNING thread_id`,
      [workspaceId, id, at],
    );
    if (updated.length === 0) return false;
    await m.query(
      `UPDATE threads SET message_count = message_count + 1,
         last_message_at = GREATEST(COALESCE(last_message_at, $3), $3) WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, updated[0].thread_id, at],
    );
    return true;
  }

  /**
   * Manual replies still `sending` whose SMTP conversation began more than `olderThanSeconds` ago:
   * their request died (a crash, a kill) before recording the outcome. Marked `failed` with `note`,
   * at most `batch` per call; the ids marked. Never sent again (the outcome is unknown).
   */
  async failStaleManualAcrossWorkspaces(
    olderThanSeconds: number,
    batch: number,
    note: string,
    m: EntityManager,
  ): Promise<number[]> {
    const marked = await rows<{ id: number }>(
      m,
      `UPDATE messages SET status = 'failed', error = $3
       WHERE id IN (SELECT id FROM messages
                    WHERE status = 'sending' AND kind = 'manual'
                      AND smtp_started_at < now() - make_interval(secs => $1::double precision)
                    ORDER BY smtp_started_at LIMIT $2 FOR UPDATE SKIP LOCKED)
         AND status = 'sending'
       RETURNING id`,
      [olderThanSeconds, batch, note],
    );
    return marked.map((r) => Number(r.id));
  }

  /** Forgets a record the server cannot have accepted; false when it was no longer `sending`. */
  async dropSending(workspaceId: WorkspaceId, id: number, m: EntityManager): Promise<boolean> {
    const dropped = await rows<{ id: number }>(
      m,
      `DELETE FROM messages WHERE workspace_id = $1 AND id = $2 AND status = 'sending' RETURNING id`,
      [workspaceId, id],
    );
    return dropped.length > 0;
  }

  // Inbound mail.

  /** Records the inbound message in its thread (count, last activity and first reply noted); its id. */
  async insertInbound(workspaceId: WorkspaceId, r: InboundMessageRow, m: EntityManager): Promise<number> {
    // The message and its thread's counters in one statement (one round trip per inbound mail).
    const [inserted] = await rows<{ id: number }>(
      m,
      `WITH inserted AS (
         INSERT INTO messages (workspace_id, thread_id, enrollment_id, direction, kind, from_address, to_address,
           subject, body, message_id, in_reply_to, status, received_at, bounce)
         VALUES ($1, $2, $3, 'inbound', $4, $5, $6, $7, $8, $9, $10, 'received', $11, $12::jsonb)
         RETURNING id
       ), thread AS (
         UPDATE threads SET message_count = message_count + 1,
           last_message_at = GREATEST(COALESCE(last_message_at, $11), $11),
           replied_at = CASE WHEN $13 THEN COALESCE(replied_at, $11) ELSE replied_at END
         WHERE workspace_id = $1 AND id = $2
       )
       SELECT id FROM inserted`,
      [
        workspaceId,
        r.threadId,
        r.enrollmentId,
        r.kind,
        r.from,
        r.to,
        r.subject,
        r.body,
        r.messageId,
        r.inReplyTo,
        r.receivedAt,
        r.bounce ? JSON.stringify(r.bounce) : null,
        r.kind === 'reply',
      ],
    );
    return Number(inserted.id);
  }

  // Bounces.

  /**
   * Records the bounce verdict on a sent message (once: the first report wins; bounce protection reads
   * `bounced_at`, set for hard bounces only). Whether this call recorded it.
   */
  async markBounce(
    workspaceId: WorkspaceId,
    messageRowId: number,
    verdict: BounceView,
    manager: EntityManager,
  ): Promise<boolean> {
    const marked = await rows<{ id: number }>(
      manager,
      `UPDATE messages SET bounce = $3::jsonb, bounce_recorded_at = now(),
         bounced_at = CASE WHEN $4 THEN coalesce(bounced_at, now()) ELSE bounced_at END
       WHERE workspace_id = $1 AND id = $2 AND bounce IS NULL RETURNING id`,
      [workspaceId, messageRowId, JSON.stringify(verdict), verdict.hard],
    );
    return marked.length > 0;
  }

  /** Sent messages of the contact that bounced softly for one of `reasons` within the last `days`. */
  async countRecentSoftBounces(
    workspaceId: WorkspaceId,
    contactId: number,
    reasons: string[],
    days: number,
    manager: EntityManager,
  ): Promise<number> {
    const [found] = await rows<{ n: number }>(
      manager,
      `SELECT count(*)::int AS n FROM messages m JOIN threads t ON t.id = m.thread_id
       WHERE t.workspace_id = $1 AND t.contact_id = $2 AND m.workspace_id = $1 AND m.direction = 'outbound'
         AND m.bounce_recorded_at > now() - make_interval(days => $4) AND m.bounce->>'reason' = ANY($3::text[])`,
      [workspaceId, contactId, reasons, days],
    );
    return found?.n ?? 0;
  }

  /** Whether a bounce is already recorded on the sent message; locks its row for the transaction. */
  async lockBounce(workspaceId: WorkspaceId, messageRowId: number, manager: EntityManager): Promise<boolean> {
    const [found] = await rows<{ bounced: boolean }>(
      manager,
      'SELECT bounce IS NOT NULL AS bounced FROM messages WHERE workspace_id = $1 AND id = $2 FOR UPDATE',
      [workspaceId, messageRowId],
    );
    return found?.bounced ?? false;
  }
}
