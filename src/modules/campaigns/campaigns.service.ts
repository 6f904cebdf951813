/**
 * Campaigns. Status moves go through `campaignMoveAllowed` with the row locked, so two
 * concurrent PATCHes cannot both pass the check. Activation (and any change to an active campaign's
 * inboxes or schedule) needs a published sequence with steps, an active inbox and a valid schedule.
 * A schedule change (its window, `start_at` or `send_in_contact_timezone`) or a re-activation
 * re-evaluates the enrollments the engine deferred to a window opening, in the same transaction
 * (enrollments/reevaluate-deferred.ts, through the SCHEDULE_CHANGE_LISTENER port). A PATCH to `paused` records `paused_reason: manual`; re-activating clears the
 * reason and starts a new bounce-protection window (bounce-protection.ts).
 */
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { In, type DataSource, type EntityManager } from 'typeorm';
import { ApiError } from '../../common/http/api-error.js';
import type { Page, PageQueryDto } from '../../common/http/pagination.js';
import { InboxesRepository } from '../inboxes/inboxes.repository.js';
import { SequencesRepository } from '../sequences/sequences.repository.js';
import { campaignMoveAllowed } from './campaign-state.js';
import { CampaignsRepository } from './campaigns.repository.js';
import type { CreateCampaignDto, UpdateCampaignDto } from './dto/campaign.dto.js';
import type { Campaign, CampaignSchedule } from './entities/campaign.entity.js';
import { SCHEDULE_CHANGE_LISTENER, type ScheduleChangeListener } from './schedule-change-listener.js';
import { sameSchedule, scheduleProblem } from './schedule.js';
import { toCampaignView, type CampaignView } from './campaign.view.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

const toSchedule = (s: CampaignSchedule): CampaignSchedule => ({
  timezone: s.timezone,
  days: [...s.days],
  start_time: s.start_time,
  end_time: s.end_time,
});

@Injectable()
export class CampaignsService {
  constructor(
    private readonly campaigns: CampaignsRepository,
    private readonly sequences: SequencesRepository,
    private readonly inboxes: InboxesRepository,
    @InjectDataSource() private readonly db: DataSource,
    @Inject(SCHEDULE_CHANGE_LISTENER) private readonly scheduleListener: ScheduleChangeListener,
  ) {}

  /** A referenced sequence must be this workspace's and not archived. */
  private async checkSequence(workspaceId: WorkspaceId, id: number, manager: EntityManager): Promise<void> {
    const seq = await this.sequences.findOne(workspaceId, { id }, manager);
    if (!seq)
      throw ApiError.validation('sequence_id', 'sequence_id does not name a sequence of this workspace');
    if (seq.status === 'archived')
      throw ApiError.validation('sequence_id', 'sequence_id names an archived sequence');
  }

  /** Every referenced inbox must be this workspace's. */
  private async checkInboxes(workspaceId: WorkspaceId, ids: string[], manager: EntityManager): Promise<void> {
    if (!ids.length) return;
    const found = await this.inboxes.findMany(workspaceId, { id: In(ids) }, undefined, manager);
    const known = new Set(found.map((i) => i.id));
    const missing = ids.findIndex((id) => !known.has(id.toLowerCase()));
    if (missing >= 0) {
      throw ApiError.validation(
        `inbox_ids.${missing}`,
        `inbox_ids.${missing} does not name an inbox of this workspace`,
      );
    }
  }

  private checkSchedule(schedule: CampaignSchedule | null | undefined): void {
    if (schedule === null || schedule === undefined) return;
    const problem = scheduleProblem(schedule);
    if (problem) throw ApiError.validation(problem.field, problem.message);
  }

  /** What an active campaign needs; throws 422 naming the first missing piece. */
  private async checkReady(workspaceId: WorkspaceId, c: Campaign, manager: EntityManager): Promise<void> {
    if (c.sequenceId === null)
      throw ApiError.validation('sequence_id', 'An active campaign needs a sequence');
    const seq = await this.sequences.findOne(workspaceId, { id: c.sequenceId }, manager);
    if (!seq || seq.status !== 'published') {
      throw ApiError.validation('sequence_id', 'An active campaign needs a published sequence');
    }
    if (!seq.steps?.length) throw ApiError.validation('sequence_id', 'The sequence has no steps');
    const active = c.inboxIds.length
      ? await this.inboxes.count(workspaceId, { id: In(c.inboxIds), status: 'active' }, manager)
      : 0;
    if (active === 0)
      throw ApiError.validation('inbox_ids', 'An active campaign needs at least one active inbox');
    if (!c.schedule) throw ApiError.validation('schedule', 'An active campaign needs a schedule');
    this.checkSchedule(c.schedule);
  }

  async create(workspaceId: WorkspaceId, body: CreateCampaignDto): Promise<CampaignView> {
    this.checkSchedule(body.schedule);
    return this.db.transaction(async (manager) => {
      if (body.sequence_id) await this.checkSequence(workspaceId, body.sequence_id, manager);
      const inboxIds = (body.inbox_ids ?? []).map((id) => id.toLowerCase());
      await this.checkInboxes(workspaceId, inboxIds, manager);
      const row = await this.campaigns.insert(
        workspaceId,
        {
          name: body.name,
          sequenceId: body.sequence_id ?? null,
          inboxIds,
          schedule: body.schedule ? toSchedule(body.schedule) : null,
          dailyLimit: body.daily_limit ?? null,
          stopOnReply: body.stop_on_reply ?? true,
          startAt: body.start_at ? new Date(body.start_at) : null,
          sendInContactTimezone: body.send_in_contact_timezone ?? false,
          stopOnReplyScope: body.stop_on_reply_scope ?? 'contact',
          verification: body.verification ?? 'skip_invalid',
          status: 'draft',
        },
        manager,
      );
      return toCampaignView(row);
    });
  }

  async show(workspaceId: WorkspaceId, id: number): Promise<CampaignView> {
    const row = await this.campaigns.findOne(workspaceId, { id });
    if (!row) throw ApiError.notFound();
    return toCampaignView(row);
  }

  async list(workspaceId: WorkspaceId, query: PageQueryDto): Promise<Page<Campaign>> {
    return this.campaigns.page(workspaceId, query);
  }

  async update(workspaceId: WorkspaceId, id: number, body: UpdateCampaignDto): Promise<CampaignView> {
    this.checkSchedule(body.schedule);
    return this.db.transaction(async (manager) => {
      const row = await this.campaigns.findOneForUpdate(workspaceId, { id }, manager);
      if (!row) throw ApiError.notFound();
      const from = row.status;
      const to = body.status ?? from;
      if (to !== from && !campaignMoveAllowed(from, to)) {
        throw ApiError.conflict(`A campaign cannot move from ${from} to ${to}`);
      }
      const changesFields =
        body.name !== undefined ||
        body.sequence_id !== undefined ||
        body.inbox_ids !== undefined ||
        body.schedule !== undefined ||
        body.daily_limit !== undefined ||
        body.stop_on_reply !== undefined ||
        body.start_at !== undefined ||
        body.send_in_contact_timezone !== undefined ||
        body.stop_on_reply_scope !== undefined ||
        body.verification !== undefined;
      if (from === 'archived' && changesFields) throw ApiError.conflict('An archived campaign cannot change');
      const next: Campaign = { ...row };
      if (body.sequence_id !== undefined && body.sequence_id !== row.sequenceId) {
        if (from !== 'draft') {
          throw ApiError.conflict('The sequence of a campaign can only change while it is draft');
        }
        if (body.sequence_id !== null) await this.checkSequence(workspaceId, body.sequence_id, manager);
        next.sequenceId = body.sequence_id;
      }
      if (body.inbox_ids !== undefined) {
        next.inboxIds = body.inbox_ids.map((i) => i.toLowerCase());
        await this.checkInboxes(workspaceId, next.inboxIds, manager);
      }
      if (body.schedule !== undefined) next.schedule = body.schedule ? toSchedule(body.schedule) : null;
      if (body.name !== undefined) next.name = body.name;
      if (body.daily_limit !== undefined) next.dailyLimit = body.daily_limit;
      if (body.stop_on_reply !== undefined) next.stopOnReply = body.stop_on_reply;
      if (body.start_at !== undefined) next.startAt = body.start_at ? new Date(body.start_at) : null;
      if (body.send_in_contact_timezone !== undefined)
        next.sendInContactTimezone = body.send_in_contact_timezone;
      if (body.stop_on_reply_scope !== undefined) next.stopOnReplyScope = body.stop_on_reply_scope;
      if (body.verification !== undefined) next.verification = body.verification;
      next.status = to;
      // A PATCH pauses by hand; re-activating clears the reason and starts a new bounce window.
      if (to === 'paused' && from !== 'paused') next.pausedReason = 'manual';
      if (to !== 'paused') next.pausedReason = null;
      if (to === 'active' && from === 'paused') next.bounceWindowStartedAt = new Date();
      const activating = to === 'active' && from !== 'active';
      const reshapingActive =
        to === 'active' && (body.inbox_ids !== undefined || body.schedule !== undefined);
      if (activating || reshapingActive) await this.checkReady(workspaceId, next, manager);
      if (activating && !row.activatedAt) next.activatedAt = new Date();
      if (to !== from || changesFields) {
        await this.campaigns.saveChanges(
          workspaceId,
          id,
          {
            name: next.name,
            sequenceId: next.sequenceId,
            inboxIds: next.inboxIds,
            schedule: next.schedule,
            dailyLimit: next.dailyLimit,
            stopOnReply: next.stopOnReply,
            startAt: next.startAt,
            sendInContactTimezone: next.sendInContactTimezone,
            stopOnReplyScope: next.stopOnReplyScope,
            verification: next.verification,
            pausedReason: next.pausedReason,
            bounceWindowStartedAt: next.bounceWindowStartedAt,
            status: next.status,
            activatedAt: next.activatedAt,
          },
          manager,
        );
      }
      // Deferrals made under the old window (or while paused) are re-evaluated: the next tick sends
      // what the new window allows.
      const scheduleChanged =
        (body.schedule !== undefined && !sameSchedule(row.schedule, next.schedule)) ||
        (body.start_at !== undefined && row.startAt?.getTime() !== next.startAt?.getTime()) ||
        next.sendInContactTimezone !== row.sendInContactTimezone;
      const reactivated = from === 'paused' && to === 'active';
      if (scheduleChanged || reactivated) {
        await this.scheduleListener.scheduleChanged(manager, workspaceId, id, next.sequenceId);
      }
      const fresh = await this.campaigns.findOne(workspaceId, { id }, manager);
      return toCampaignView(fresh!);
    });
  }
}
