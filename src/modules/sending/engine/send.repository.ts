/**
 * Every statement of the send path except capacity (capacity.repository.ts). A tick works on
 * enrollments of many workspaces at once, so the batch statements span workspaces (`…AcrossWorkspaces`)
 * and every row they return carries its workspace id; statements on one known row take its workspace
 * id first. Hand-written SQL: this is the hottest path of the service, and each batch is one statement
 * whatever its size (arrays unnested).
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { In, type DataSource, type EntityManager } from 'typeorm';
import { rows } from '../../../database/query-rows.js';
import { Enrollment } from '../../enrollments/entities/enrollment.entity.js';
import { Inbox } from '../../inboxes/entities/inbox.entity.js';
import type { SequenceStep } from '../../sequences/entities/sequence.entity.js';
import { effectiveConfig, type WorkspaceConfig } from '../../workspaces/workspace-config.js';
import type { Claimed, Draft, DueStep, RecordedMessage } from './engine.types.js';

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

/**
 * Claimed enrollments still carrying this claim's token, locked, with everything their next step
 * needs in one round trip: campaign, steps, workspace config, contact, thread and outbound messages.
 */
const LOAD_DUE_SQL = `
  SELECT e.id, e.workspace_id, e.campaign_id, e.contact_id, e.status, e.current_step, e.inbox_id,
    c.status AS campaign_status, c.schedule, c.inbox_ids, c.daily_limit, c.start_at, c.send_in_contact_timezone,
    s.steps, w.config,
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
  WHERE e.id = ANY($1::bigint[]) AND e.status = 'active' AND e.next_step_at = $2
  ORDER BY e.id
  FOR UPDATE OF e`;

/** Threads (first steps), `sending` messages and the enrollments' inbox choice in one statement. */
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
  ), msg AS (
    INSERT INTO messages (workspace_id, thread_id, enrollment_id, direction, kind, from_address, to_address,
      subject, body, message_id, in_reply_to, status, step_position, variant)
    SELECT i.workspace_id, coalesce(i.thread_id, t.id), i.enrollment_id, 'outbound', 'email', i.from_address,
      i.to_address, i.subject, i.body, i.message_id, i.in_reply_to, 'sending', i.step_position, i.variant
    FROM input i LEFT JOIN new_thread t ON t.enrollment_id = i.enrollment_id
    RETURNING id, thread_id, enrollment_id
  ), chosen AS (
    UPDATE enrollments e SET inbox_id = i.inbox_id, updated_at = now()
    FROM input i WHERE e.id = i.enrollment_id AND e.workspace_id = i.workspace_id RETURNING e.id
  )
  SELECT msg.id, msg.thread_id, msg.enrollment_id FROM msg, (SELECT count(*) FROM chosen) AS c`;

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

const byPosition = (steps: SequenceStep[] | null | undefined): SequenceStep[] =>
  [...(steps ?? [])].sort((a, b) => a.position - b.position);

@Injectable()
export class SendRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Claims up to `limit` due enrollments and leases them for `leaseSeconds` (the claim's token). */
  claimDueAcrossWorkspaces(
    limit: number,
    leaseSeconds: number,
  ): Promise<Array<{ id: number; next_step_at: Date }>> {
    return rows<{ id: number; next_step_at: Date }>(this.ds.manager, CLAIM_SQL, [limit, leaseSeconds]);
  }

  /** Gives claimed enrollments back (due at once) while the claim's token is still theirs. */
  async releaseClaimsAcrossWorkspaces(ids: number[], lease: Date): Promise<void> {
    await this.ds.query(
      `UPDATE enrollments SET next_step_at = now() WHERE id = ANY($1::bigint[]) AND next_step_at = $2 AND status = 'active'`,
      [ids, lease],
    );
  }

  /**
   * Sets `smtp_started_at` on messages about to enter SMTP: only rows still `sending`, not begun, and
   * whose enrollment still carries this claim's token. Returns the ids marked.
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

  /** The claimed enrollments (still this claim's) with what their next step needs, locked; one statement for 1..n. */
  async loadDueAcrossWorkspaces(ids: number[], lease: Date, m: EntityManager): Promise<DueStep[]> {
    const found = await rows<Record<string, unknown>>(m, LOAD_DUE_SQL, [ids, lease]);
    return found.map((r) => ({
      enrollment: claimedFromRow(r),
      campaign: {
        status: r.campaign_status as string,
        schedule: r.schedule as DueStep['campaign']['schedule'],
        inboxIds: (r.inbox_ids as string[]) ?? [],
        dailyLimit: (r.daily_limit as number | null) ?? null,
        startAt: r.start_at ? new Date(r.start_at as Date | string) : null,
        sendInContactTimezone: r.send_in_contact_timezone === true,
      },
      steps: byPosition(r.steps as SequenceStep[]),
      config: effectiveConfig(r.config as Partial<WorkspaceConfig>),
      contact: (r.contact as Record<string, unknown> | null) ?? null,
      thread: (r.thread as { id: number; subject: string } | null) ?? undefined,
      outbound: (r.messages as RecordedMessage[]) ?? [],
    }));
  }

  /** Inboxes by id (callers check each one's workspace). */
  findInboxesAcrossWorkspaces(ids: string[], m: EntityManager): Promise<Inbox[]> {
    return ids.length ? m.getRepository(Inbox).find({ where: { id: In(ids) } }) : Promise.resolve([]);
  }

  /** Records drafts: their threads (first steps), `sending` messages and inbox choices; ids by enrollment. */
  async insertDraftsAcrossWorkspaces(
    drafts: Draft[],
    m: EntityManager,
  ): Promise<Map<number, { id: number; threadId: number }>> {
    const inserted = await rows<{ id: number; thread_id: number; enrollment_id: number }>(
      m,
      INSERT_DRAFTS_SQL,
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
        drafts.map((d) => d.variant),
      ],
    );
    return new Map(
      inserted.map((x) => [Number(x.enrollment_id), { id: Number(x.id), threadId: Number(x.thread_id) }]),
    );
  }

  /** Pauses an active enrollment with a note, due at once when resumed. */
  async pause(workspaceId: string, enrollmentId: number, note: string, m: EntityManager): Promise<void> {
    await m.query(
      `UPDATE enrollments SET status = 'paused', stop_note = $3, next_step_at = now(), updated_at = now()
       WHERE workspace_id = $1 AND id = $2 AND status = 'active'`,
      [workspaceId, enrollmentId, note],
    );
  }

  async defer(workspaceId: string, enrollmentId: number, until: Date, m: EntityManager): Promise<void> {
    await m.query(
      `UPDATE enrollments SET next_step_at = $3 WHERE workspace_id = $1 AND id = $2 AND status = 'active'`,
      [workspaceId, enrollmentId, until],
    );
  }

  /** Deletes a `sending` message whose SMTP conversation never began; false when it did. */
  async dropIfNeverStarted(workspaceId: string, messageRowId: number, m: EntityManager): Promise<boolean> {
    const dropped = await rows(
      m,
      `DELETE FROM messages WHERE workspace_id = $1 AND id = $2 AND status = 'sending' AND smtp_started_at IS NULL
       RETURNING id`,
      [workspaceId, messageRowId],
    );
    return dropped.length > 0;
  }

  /** A `sending` message becomes `failed` with `error`. */
  async markFailed(
    workspaceId: string,
    messageRowId: number,
    error: string,
    m: EntityManager,
  ): Promise<void> {
    await m.query(
      `UPDATE messages SET status = 'failed', error = $3 WHERE workspace_id = $1 AND id = $2 AND status = 'sending'`,
      [workspaceId, messageRowId, error],
    );
  }

  /** Shows an SMTP failure on the inbox, and takes it out of rotation when `disable`. */
  async noteInboxFailure(
    workspaceId: string,
    inboxId: string,
    reason: string,
    disable: boolean,
    m: EntityManager,
  ): Promise<void> {
    await m.query(
      `UPDATE inboxes SET last_error = $3, last_error_at = now(), status = CASE WHEN $4 THEN 'error' ELSE status END
       WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, inboxId, reason, disable],
    );
  }

  /**
   * Forgets a record that never reached the server: the `sending` row, an empty new thread, the
   * enrollment's inbox choice; the step is due again after `delaySeconds`.
   */
  async dropRecord(
    workspaceId: string,
    r: { messageRowId: number; threadId: number; enrollmentId: number; previousInboxId: string | null },
    delaySeconds: number,
    m: EntityManager,
  ): Promise<void> {
    await m.query(`DELETE FROM messages WHERE workspace_id = $1 AND id = $2 AND status = 'sending'`, [
      workspaceId,
      r.messageRowId,
    ]);
    await m.query(
      `DELETE FROM threads t WHERE t.workspace_id = $1 AND t.id = $2 AND t.message_count = 0
         AND NOT EXISTS (SELECT 1 FROM messages x WHERE x.thread_id = t.id)`,
      [workspaceId, r.threadId],
    );
    await m.query(
      `UPDATE enrollments SET next_step_at = now() + make_interval(secs => $3::double precision), inbox_id = $4
       WHERE workspace_id = $1 AND id = $2 AND status = 'active'`,
      [workspaceId, r.enrollmentId, delaySeconds, r.previousInboxId],
    );
  }

  // Finalising a group of accepted sends (set-based: a fixed number of statements per group).

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

  /** Contacts `new` → `contacted`. */
  async markContactedAcrossWorkspaces(
    contacts: Array<{ workspaceId: string; id: number }>,
    m: EntityManager,
  ): Promise<void> {
    await m.query(
      `UPDATE contacts c SET stage = 'contacted', updated_at = now()
       FROM unnest($1::uuid[], $2::bigint[]) AS x(workspace_id, id)
       WHERE c.workspace_id = x.workspace_id AND c.id = x.id AND c.stage = 'new'`,
      [contacts.map((c) => c.workspaceId), contacts.map((c) => c.id)],
    );
  }

  /** Enrollments by id, in id order; locked when `lock`. */
  findEnrollmentsAcrossWorkspaces(ids: number[], m: EntityManager, lock = false): Promise<Enrollment[]> {
    return m.getRepository(Enrollment).find({
      where: { id: In(ids) },
      order: { id: 'ASC' },
      ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
  }

  /** The steps (in position order) of each campaign's sequence. */
  async stepsOfCampaignsAcrossWorkspaces(
    campaignIds: number[],
    m: EntityManager,
  ): Promise<Map<number, SequenceStep[]>> {
    const found = await rows<{ id: number; steps: SequenceStep[] }>(
      m,
      `SELECT c.id, s.steps FROM campaigns c JOIN sequences s ON s.id = c.sequence_id WHERE c.id = ANY($1::bigint[])`,
      [campaignIds],
    );
    const steps = new Map(found.map((r) => [Number(r.id), byPosition(r.steps)]));
    for (const id of campaignIds) if (!steps.has(id)) steps.set(id, []);
    return steps;
  }

  /** Moves enrollments on: their step counter and when the next step is due (null: not scheduled). */
  async moveEnrollmentsAcrossWorkspaces(
    moving: Array<{ id: number; step: number; due: Date | null }>,
    m: EntityManager,
  ): Promise<void> {
    await m.query(
      `UPDATE enrollments e SET current_step = x.step, next_step_at = x.due, updated_at = now()
       FROM unnest($1::bigint[], $2::int[], $3::timestamptz[]) AS x(id, step, due)
       WHERE e.id = x.id`,
      [moving.map((x) => x.id), moving.map((x) => x.step), moving.map((x) => x.due)],
    );
  }

  /** Completes the active ones among these enrollments; the ids completed. */
  async completeEnrollmentsAcrossWorkspaces(
    completing: Array<{ id: number; step: number }>,
    m: EntityManager,
  ): Promise<number[]> {
    const completed = await rows<{ id: number }>(
      m,
      `UPDATE enrollments e SET status = 'completed', current_step = x.step, completed_at = now(),
         next_step_at = NULL, updated_at = now()
       FROM unnest($1::bigint[], $2::int[]) AS x(id, step)
       WHERE e.id = x.id AND e.status = 'active' RETURNING e.id`,
      [completing.map((x) => x.id), completing.map((x) => x.step)],
    );
    return completed.map((r) => Number(r.id));
  }
}
