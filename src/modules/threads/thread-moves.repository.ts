import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

/**
 * A thread's changes made by sequences that react (the reactions module), in the caller's
 * transaction: the enrollment it continues in, its follow-up day, the referral it names.
 */
@Injectable()
export class ThreadMovesRepository {
  /** The conversation continues in `enrollmentId` (a subsequence enrollment, or back to its parent). */
  async moveToEnrollment(
    workspaceId: WorkspaceId,
    threadId: number,
    enrollmentId: number,
    m: EntityManager,
  ): Promise<void> {
    await m.query(`UPDATE threads SET enrollment_id = $3 WHERE workspace_id = $1 AND id = $2`, [
      workspaceId,
      threadId,
      enrollmentId,
    ]);
  }

  /** A `not_now` reply's day to come back (null: none named). */
  async setFollowUp(
    workspaceId: WorkspaceId,
    threadId: number,
    at: Date | null,
    m: EntityManager,
  ): Promise<void> {
    await m.query(`UPDATE threads SET follow_up_at = $3 WHERE workspace_id = $1 AND id = $2`, [
      workspaceId,
      threadId,
      at,
    ]);
  }

  /** The address a `wrong_person` reply named. */
  async setReferral(
    workspaceId: WorkspaceId,
    threadId: number,
    email: string,
    m: EntityManager,
  ): Promise<void> {
    await m.query(`UPDATE threads SET referral_email = $3 WHERE workspace_id = $1 AND id = $2`, [
      workspaceId,
      threadId,
      email,
    ]);
  }

  /** The thread an enrollment's steps went out in, if any. */
  async threadOfEnrollment(
    workspaceId: WorkspaceId,
    enrollmentId: number,
    m: EntityManager,
  ): Promise<number | null> {
    const [row] = (await m.query(
      `SELECT id FROM threads WHERE workspace_id = $1 AND enrollment_id = $2 ORDER BY id LIMIT 1`,
      [workspaceId, enrollmentId],
    )) as Array<{ id: string }>;
    return row ? Number(row.id) : null;
  }

  /** The thread's inbox and current enrollment. */
  async findThread(
    workspaceId: WorkspaceId,
    threadId: number,
    m: EntityManager,
  ): Promise<{ inbox_id: string; enrollment_id: number | null } | undefined> {
    const [row] = (await m.query(
      `SELECT inbox_id, enrollment_id FROM threads WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, threadId],
    )) as Array<{ inbox_id: string; enrollment_id: string | null }>;
    return row
      ? {
          inbox_id: row.inbox_id,
          enrollment_id: row.enrollment_id === null ? null : Number(row.enrollment_id),
        }
      : undefined;
  }
}
