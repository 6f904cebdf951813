/**
 * The send path's enrollment statements (the enrollments module owns the table; the sending engine
 * calls these): the claim of due enrollments and its release, the inbox a draft chose, pause, defer
 * and retry of one step, and moving a finalised group on. Batch statements span workspaces
 * (`…AcrossWorkspaces`, one statement per batch whatever its size: arrays unnested); statements on
 * one enrollment take its workspace id first. Hand-written SQL: the hottest path of the service.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { rows } from '../../database/query-rows.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

/** The SQL that finds due enrollments (also EXPLAINed by bench/sending.mjs and bench/holds.mjs). */
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

@Injectable()
export class EnrollmentStepsRepository {
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

  /** The inbox each drafted enrollment sends from (recorded with its draft, in its transaction). */
  async chooseInboxesAcrossWorkspaces(
    choices: Array<{ workspaceId: WorkspaceId; enrollmentId: number; inboxId: string }>,
    m: EntityManager,
  ): Promise<void> {
    await m.query(
      `UPDATE enrollments e SET inbox_id = x.inbox_id, updated_at = now()
       FROM unnest($1::bigint[], $2::uuid[], $3::uuid[]) AS x(enrollment_id, workspace_id, inbox_id)
       WHERE e.id = x.enrollment_id AND e.workspace_id = x.workspace_id`,
      [choices.map((c) => c.enrollmentId), choices.map((c) => c.workspaceId), choices.map((c) => c.inboxId)],
    );
  }

  /** Pauses an active enrollment with a note, due at once when resumed. */
  async pause(workspaceId: WorkspaceId, enrollmentId: number, note: string, m: EntityManager): Promise<void> {
    await m.query(
      `UPDATE enrollments SET status = 'paused', stop_note = $3, next_step_at = now(), updated_at = now()
       WHERE workspace_id = $1 AND id = $2 AND status = 'active'`,
      [workspaceId, enrollmentId, note],
    );
  }

  async defer(workspaceId: WorkspaceId, enrollmentId: number, until: Date, m: EntityManager): Promise<void> {
    await m.query(
      `UPDATE enrollments SET next_step_at = $3 WHERE workspace_id = $1 AND id = $2 AND status = 'active'`,
      [workspaceId, enrollmentId, until],
    );
  }

  /** A record that never reached the server: the step is due again after `delaySeconds`, its inbox choice undone. */
  async retryLater(
    workspaceId: WorkspaceId,
    enrollmentId: number,
    previousInboxId: string | null,
    delaySeconds: number,
    m: EntityManager,
  ): Promise<void> {
    await m.query(
      `UPDATE enrollments SET next_step_at = now() + make_interval(secs => $3::double precision), inbox_id = $4
       WHERE workspace_id = $1 AND id = $2 AND status = 'active'`,
      [workspaceId, enrollmentId, delaySeconds, previousInboxId],
    );
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
