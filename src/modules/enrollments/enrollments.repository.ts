import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { TenantRepository } from '../../common/tenant/tenant.repository.js';
import { Enrollment } from './entities/enrollment.entity.js';
import { paginate, type Page, type PageQueryDto } from '../../common/http/pagination.js';
import { rows } from '../../database/query-rows.js';
import type { StopReason } from './enrollment-state.js';
import type { EntityManager } from 'typeorm';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

@Injectable()
export class EnrollmentsRepository extends TenantRepository<Enrollment> {
  constructor(@InjectRepository(Enrollment) repo: Repository<Enrollment>) {
    super(repo);
  }

  /** A resume, pause or stop asked through the API: the new status (and, stopping, the stop's fields). */
  async setStatus(
    workspaceId: WorkspaceId,
    id: number,
    change: Pick<Partial<Enrollment>, 'status' | 'stopReason' | 'stopNote' | 'stoppedAt' | 'nextStepAt'>,
    manager: EntityManager,
  ): Promise<void> {
    await this.scope(workspaceId, manager).update({ id }, change);
  }

  /** A page of enrollments, filtered by campaign, contact and statuses. */
  page(
    workspaceId: WorkspaceId,
    query: PageQueryDto,
    filter: { campaignId?: number; contactId?: number; subsequenceId?: number; statuses?: string[] },
  ): Promise<Page<Enrollment>> {
    const qb = this.query(workspaceId, 'e');
    if (filter.campaignId !== undefined)
      qb.andWhere('e.campaignId = :campaignId', { campaignId: filter.campaignId });
    if (filter.contactId !== undefined)
      qb.andWhere('e.contactId = :contactId', { contactId: filter.contactId });
    if (filter.subsequenceId !== undefined)
      qb.andWhere('e.subsequenceId = :subsequenceId', { subsequenceId: filter.subsequenceId });
    if (filter.statuses?.length) qb.andWhere('e.status IN (:...statuses)', { statuses: filter.statuses });
    return paginate(qb, 'e', query, { tenant: workspaceId, route: 'enrollments.index' });
  }

  /** Inserts the enrollment unless the contact is already enrolled in the campaign; its id, or null. */
  async insertIfAbsent(
    workspaceId: WorkspaceId,
    values: Partial<Enrollment>,
    manager: EntityManager,
  ): Promise<number | null> {
    const inserted = await this.unscoped(manager)
      .createQueryBuilder()
      .insert()
      .into(Enrollment)
      .values({ ...values, workspaceId })
      .orIgnore()
      .returning(['id'])
      .execute();
    return (inserted.raw as Array<{ id: number }>)[0]?.id ?? null;
  }
}

/**
 * When a deferred enrollment is due again by its step delays alone: the enrollment's start (step 1)
 * or the send time of its last step, plus the next step's delay.
 */
const DUE_BY_DELAY = `
  CASE WHEN e.current_step = 0 THEN e.created_at
    ELSE coalesce(
      (SELECT m.sent_at FROM messages m
        WHERE m.enrollment_id = e.id AND m.direction = 'outbound'
          AND m.step_position = ($4::int[])[e.current_step] AND m.status = 'sent'),
      e.updated_at)
  END + make_interval(mins => coalesce(($5::int[])[e.current_step + 1], 0))`;

/**
 * Brings forward the campaign's active enrollments deferred beyond what their step delays require
 * (never earlier than now), except those inside a claim lease or with their next step in flight.
 */
const REEVALUATE_SQL = `
  UPDATE enrollments e SET next_step_at = greatest(clock_timestamp(), ${DUE_BY_DELAY})
  WHERE e.campaign_id = $2 AND e.workspace_id = $1 AND (e.status = 'active') IS TRUE
    AND e.next_step_at > clock_timestamp() + make_interval(secs => $3::double precision)
    AND e.next_step_at > greatest(clock_timestamp(), ${DUE_BY_DELAY})
    AND (SELECT m.status FROM messages m
         WHERE m.enrollment_id = e.id AND m.direction = 'outbound'
           AND m.step_position = ($4::int[])[e.current_step + 1]) IS DISTINCT FROM 'sending'
  RETURNING e.id`;

/** The sequence's step positions and delays, in position order. */
const STEPS_SQL = `
  SELECT coalesce(array_agg((x ->> 'position')::int ORDER BY (x ->> 'position')::int), '{}') AS positions,
         coalesce(array_agg((x ->> 'delay_minutes')::int ORDER BY (x ->> 'position')::int), '{}') AS delays
  FROM sequences s CROSS JOIN jsonb_array_elements(s.steps) x
  WHERE s.workspace_id = $1 AND s.id = $2`;

/**
 * Enrollment state changes made by other modules (the send path, inbound mail, unsubscribes, campaign
 * schedule changes), always in the caller's transaction. Stateless: every method takes the manager.
 */
@Injectable()
export class EnrollmentTransitionsRepository {
  /** active|paused → stopped with a reason; false for an enrollment already finished. */
  async stop(
    workspaceId: WorkspaceId,
    enrollmentId: number,
    reason: StopReason,
    note: string | null,
    manager: EntityManager,
  ): Promise<boolean> {
    const updated = await rows(
      manager,
      `UPDATE enrollments SET status = 'stopped', stop_reason = $3, stop_note = COALESCE($4, stop_note),
         stopped_at = now(), next_step_at = NULL, updated_at = now()
       WHERE workspace_id = $1 AND id = $2 AND status IN ('active', 'paused')
       RETURNING id`,
      [workspaceId, enrollmentId, reason, note],
    );
    return updated.length > 0;
  }

  /** An active enrollment ends `skipped` (the address gate, CONTRACT §24); false when it was not active. */
  async skip(
    workspaceId: WorkspaceId,
    enrollmentId: number,
    reason: StopReason,
    note: string,
    manager: EntityManager,
  ): Promise<boolean> {
    const updated = await rows(
      manager,
      `UPDATE enrollments SET status = 'skipped', stop_reason = $3, stop_note = $4,
         stopped_at = now(), next_step_at = NULL, updated_at = now()
       WHERE workspace_id = $1 AND id = $2 AND status = 'active'
       RETURNING id`,
      [workspaceId, enrollmentId, reason, note],
    );
    return updated.length > 0;
  }

  /** Stops every active or paused enrollment of a contact; how many. */
  async stopAllOfContact(
    workspaceId: WorkspaceId,
    contactId: number,
    reason: StopReason,
    manager: EntityManager,
  ): Promise<number> {
    const stopped = await rows(
      manager,
      `UPDATE enrollments SET status = 'stopped', stop_reason = $3, stopped_at = now(),
         next_step_at = NULL, updated_at = now()
       WHERE workspace_id = $1 AND contact_id = $2 AND status IN ('active', 'paused')
       RETURNING id`,
      [workspaceId, contactId, reason],
    );
    return stopped.length;
  }

  /**
   * Holds an active or paused enrollment's next step until `until` (out of office): `held_until`,
   * `held_reason`, and its due time moves to the hold when earlier, so the due index never sees it
   * before (a claim in flight loses its fencing token and sends nothing). The row held, or undefined.
   */
  async hold(
    workspaceId: WorkspaceId,
    enrollmentId: number,
    until: Date,
    reason: string,
    manager: EntityManager,
  ): Promise<{ id: number; contact_id: number; campaign_id: number } | undefined> {
    const [row] = await rows<{ id: string; contact_id: string; campaign_id: string }>(
      manager,
      `UPDATE enrollments SET held_until = $3, held_reason = $4,
         next_step_at = CASE WHEN next_step_at IS NULL THEN NULL ELSE greatest(next_step_at, $3) END,
         updated_at = now()
       WHERE workspace_id = $1 AND id = $2 AND status IN ('active', 'paused')
       RETURNING id, contact_id, campaign_id`,
      [workspaceId, enrollmentId, until, reason],
    );
    return row
      ? { id: Number(row.id), contact_id: Number(row.contact_id), campaign_id: Number(row.campaign_id) }
      : undefined;
  }

  /** Stops every active or paused enrollment of a subsequence (it is being deleted); how many. */
  async stopAllOfSubsequence(
    workspaceId: WorkspaceId,
    subsequenceId: number,
    note: string,
    manager: EntityManager,
  ): Promise<number> {
    const stopped = await rows(
      manager,
      `UPDATE enrollments SET status = 'stopped', stop_reason = 'manual', stop_note = $3, stopped_at = now(),
         next_step_at = NULL, updated_at = now()
       WHERE workspace_id = $1 AND subsequence_id = $2 AND status IN ('active', 'paused')
       RETURNING id`,
      [workspaceId, subsequenceId, note],
    );
    return stopped.length;
  }

  /**
   * Stops every active or paused enrollment of the campaign whose contact's address is at `domain`
   * (stop on reply for the whole company); the ids stopped.
   */
  async stopAllOfCampaignDomain(
    workspaceId: WorkspaceId,
    campaignId: number,
    domain: string,
    reason: StopReason,
    note: string,
    manager: EntityManager,
  ): Promise<number[]> {
    const stopped = await rows<{ id: number }>(
      manager,
      `UPDATE enrollments e SET status = 'stopped', stop_reason = $4, stop_note = $5, stopped_at = now(),
         next_step_at = NULL, updated_at = now()
       FROM contacts c
       WHERE e.workspace_id = $1 AND e.campaign_id = $2 AND e.status IN ('active', 'paused')
         AND c.workspace_id = e.workspace_id AND c.id = e.contact_id
         AND lower(split_part(c.email, '@', 2)) = $3
       RETURNING e.id`,
      [workspaceId, campaignId, domain, reason, note],
    );
    return stopped.map((r) => Number(r.id));
  }

  /** Re-evaluates the campaign's deferred enrollments after a schedule change; how many moved. */
  async reevaluateDeferred(
    workspaceId: WorkspaceId,
    campaignId: number,
    sequenceId: number,
    leaseSeconds: number,
    manager: EntityManager,
  ): Promise<number> {
    const [steps] = await rows<{ positions: number[]; delays: number[] }>(manager, STEPS_SQL, [
      workspaceId,
      sequenceId,
    ]);
    if (!steps?.positions.length) return 0;
    const changed = await rows<{ id: number }>(manager, REEVALUATE_SQL, [
      workspaceId,
      campaignId,
      leaseSeconds,
      steps.positions,
      steps.delays,
    ]);
    return changed.length;
  }
}
