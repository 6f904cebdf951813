/**
 * The send path's reads (claimed enrollments with everything their step needs, inboxes, enrollments,
 * campaigns' steps). Its writes to other modules' tables go through their owners (engine.types.ts,
 * `EngineWriters`); capacity is capacity.repository.ts. A tick works on enrollments of many
 * workspaces at once, so the batch statements span workspaces (`…AcrossWorkspaces`) and every row
 * they return carries its workspace id; statements on one known row take its workspace id first.
 * Hand-written SQL: this is the hottest path of the service. Stateless: every method runs on the
 * manager passed.
 */
import { Injectable } from '@nestjs/common';
import { In, type EntityManager } from 'typeorm';
import { rows } from '../../../database/query-rows.js';
import { Enrollment } from '../../enrollments/entities/enrollment.entity.js';
import { Inbox } from '../../inboxes/entities/inbox.entity.js';
import type { CampaignVerification } from '../../campaigns/entities/campaign.entity.js';
import type { SequenceStep } from '../../sequences/entities/sequence.entity.js';
import { effectiveConfig, type WorkspaceConfig } from '../../workspaces/workspace-config.js';
import type { Claimed, DueStep, RecordedMessage } from './engine.types.js';
import { asWorkspaceId } from '../../../common/tenant/workspace-id.js';

/**
 * Claimed enrollments still carrying this claim's token, locked, with everything their next step
 * needs in one round trip: campaign, steps, workspace config, contact, thread and outbound messages.
 */
const LOAD_DUE_SQL = `
  SELECT e.id, e.workspace_id, e.campaign_id, e.contact_id, e.status, e.current_step, e.inbox_id, e.subsequence_id,
    c.status AS campaign_status, c.schedule, c.inbox_ids, c.daily_limit, c.start_at, c.send_in_contact_timezone,
    c.verification, e.created_at AS enrollment_created_at,
    s.steps, w.config,
    (SELECT to_jsonb(ct) || jsonb_build_object('referrer',
        (SELECT jsonb_build_object('first_name', r.first_name, 'last_name', r.last_name, 'email', r.email)
          FROM contacts r WHERE r.workspace_id = ct.workspace_id AND r.id = ct.referred_by_contact_id))
      FROM contacts ct WHERE ct.workspace_id = e.workspace_id AND ct.id = e.contact_id) AS contact,
    (SELECT jsonb_build_object('id', t.id, 'subject', t.subject) FROM threads t
      WHERE t.workspace_id = e.workspace_id AND t.enrollment_id = e.id ORDER BY t.id LIMIT 1) AS thread,
    (SELECT coalesce(jsonb_agg(jsonb_build_object('id', x.id, 'status', x.status,
        'step_position', x.step_position, 'message_id', x.message_id) ORDER BY x.step_position), '[]'::jsonb)
      FROM messages x WHERE x.workspace_id = e.workspace_id AND x.enrollment_id = e.id
        AND x.direction = 'outbound') AS messages,
    CASE WHEN e.subsequence_id IS NOT NULL THEN
      (SELECT coalesce(jsonb_agg(y.message_id ORDER BY y.id), '[]'::jsonb) FROM messages y
        WHERE y.workspace_id = e.workspace_id AND y.message_id IS NOT NULL
          AND y.thread_id = (SELECT t.id FROM threads t
            WHERE t.workspace_id = e.workspace_id AND t.enrollment_id = e.id ORDER BY t.id LIMIT 1)
          AND (y.direction = 'inbound' OR y.status = 'sent'))
    END AS conversation
  FROM enrollments e
  JOIN campaigns c ON c.workspace_id = e.workspace_id AND c.id = e.campaign_id
  LEFT JOIN subsequences ss ON ss.workspace_id = e.workspace_id AND ss.id = e.subsequence_id
  JOIN sequences s ON s.id = coalesce(ss.sequence_id, c.sequence_id) AND s.workspace_id = c.workspace_id
  JOIN workspaces w ON w.id = c.workspace_id
  WHERE e.id = ANY($1::bigint[]) AND e.status = 'active' AND e.next_step_at = $2
  ORDER BY e.id
  FOR UPDATE OF e`;

/** The engine's enrollment from a raw `enrollments` row (snake_case, as pg returns it). */
function claimedFromRow(r: Record<string, unknown>): Claimed {
  return {
    id: Number(r.id),
    workspaceId: asWorkspaceId(r.workspace_id as string),
    campaignId: Number(r.campaign_id),
    contactId: Number(r.contact_id),
    status: r.status as Enrollment['status'],
    currentStep: Number(r.current_step),
    inboxId: (r.inbox_id as string | null) ?? null,
    subsequenceId:
      r.subsequence_id === null || r.subsequence_id === undefined ? null : Number(r.subsequence_id),
  };
}

const byPosition = (steps: SequenceStep[] | null | undefined): SequenceStep[] =>
  [...(steps ?? [])].sort((a, b) => a.position - b.position);

@Injectable()
export class SendRepository {
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
        verification: (r.verification as CampaignVerification | undefined) ?? 'skip_invalid',
      },
      steps: byPosition(r.steps as SequenceStep[]),
      config: effectiveConfig(r.config as Partial<WorkspaceConfig>),
      contact: (r.contact as Record<string, unknown> | null) ?? null,
      enrolledAt: new Date(r.enrollment_created_at as Date | string),
      thread: (r.thread as { id: number; subject: string } | null) ?? undefined,
      outbound: (r.messages as RecordedMessage[]) ?? [],
      conversation: (r.conversation as string[] | null) ?? null,
    }));
  }

  /** Inboxes by id (callers check each one's workspace). */
  findInboxesAcrossWorkspaces(ids: string[], m: EntityManager): Promise<Inbox[]> {
    return ids.length ? m.getRepository(Inbox).find({ where: { id: In(ids) } }) : Promise.resolve([]);
  }

  // Finalising a group of accepted sends (set-based: a fixed number of statements per group).

  /** Enrollments by id, in id order; locked when `lock`. */
  findEnrollmentsAcrossWorkspaces(ids: number[], m: EntityManager, lock = false): Promise<Enrollment[]> {
    return m.getRepository(Enrollment).find({
      where: { id: In(ids) },
      order: { id: 'ASC' },
      ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
  }

  /** The steps (in position order) of each enrollment's sequence (its subsequence's, else its campaign's). */
  async stepsOfEnrollmentsAcrossWorkspaces(
    enrollmentIds: number[],
    m: EntityManager,
  ): Promise<Map<number, SequenceStep[]>> {
    const found = await rows<{ id: number; steps: SequenceStep[] }>(
      m,
      `SELECT e.id, s.steps FROM enrollments e
       JOIN campaigns c ON c.workspace_id = e.workspace_id AND c.id = e.campaign_id
       LEFT JOIN subsequences ss ON ss.workspace_id = e.workspace_id AND ss.id = e.subsequence_id
       JOIN sequences s ON s.workspace_id = e.workspace_id AND s.id = coalesce(ss.sequence_id, c.sequence_id)
       WHERE e.id = ANY($1::bigint[])`,
      [enrollmentIds],
    );
    const steps = new Map(found.map((r) => [Number(r.id), byPosition(r.steps)]));
    for (const id of enrollmentIds) if (!steps.has(id)) steps.set(id, []);
    return steps;
  }
}
