/**
 * A campaign's subsequences (CONTRACT §23): up to 10, each a published sequence of the workspace that
 * a trigger moves a contact into. Another workspace's campaign is unknown (404, same body); another
 * workspace's or an unpublished sequence is refused with its field (422).
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { ApiError } from '../../common/http/api-error.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';
import { EnrollmentTransitionsRepository } from '../enrollments/enrollments.repository.js';
import { CampaignsRepository } from '../campaigns/campaigns.repository.js';
import { SequencesRepository } from '../sequences/sequences.repository.js';
import { isReplyCategory, type ReplyCategory } from '../threads/reply-category.js';
import type {
  CreateSubsequenceDto,
  SubsequenceTriggerDto,
  UpdateSubsequenceDto,
} from './dto/subsequence.dto.js';
import type { Subsequence, SubsequenceTrigger } from './entities/subsequence.entity.js';
import { SubsequencesRepository } from './subsequences.repository.js';
import { toSubsequenceView, type SubsequenceView } from './subsequence.view.js';

export const MAX_SUBSEQUENCES = 10;

/** The trigger as stored, or a 422 naming the field at fault. */
export function parseTrigger(raw: SubsequenceTriggerDto): SubsequenceTrigger {
  const type = (raw as { type?: unknown }).type;
  const extra = Object.keys(raw).filter((k) => k !== 'type' && k !== 'categories');
  if (extra.length) throw ApiError.validation(`trigger.${extra[0]}`, `trigger.${extra[0]} is not a field`);
  if (type === 'completed' || type === 'referral') {
    if (raw.categories !== undefined)
      throw ApiError.validation('trigger.categories', `A ${type} trigger takes no categories`);
    return { type };
  }
  if (type !== 'category')
    throw ApiError.validation('trigger.type', 'trigger.type must be one of category, completed, referral');
  const categories: unknown = raw.categories;
  if (!Array.isArray(categories) || categories.length === 0 || categories.length > 10)
    throw ApiError.validation('trigger.categories', 'trigger.categories must list 1 to 10 reply categories');
  const seen = new Set<ReplyCategory>();
  for (const [i, c] of categories.entries()) {
    if (!isReplyCategory(c)) throw ApiError.validation(`trigger.categories.${i}`, 'Not a reply category');
    if (c === 'unsubscribe_request')
      throw ApiError.validation(
        `trigger.categories.${i}`,
        'unsubscribe_request unsubscribes: it never moves a contact into a subsequence',
      );
    seen.add(c);
  }
  return { type: 'category', categories: [...seen] };
}

@Injectable()
export class SubsequencesService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly subsequences: SubsequencesRepository,
    private readonly campaigns: CampaignsRepository,
    private readonly sequences: SequencesRepository,
    private readonly transitions: EnrollmentTransitionsRepository,
  ) {}

  private async campaignOrNotFound(ws: WorkspaceId, campaignId: number, m: EntityManager): Promise<void> {
    // Locked: two creates at once count each other (at most 10).
    const campaign = await this.campaigns.findOneForUpdate(ws, { id: campaignId }, m);
    if (!campaign) throw ApiError.notFound();
  }

  private async checkSequence(ws: WorkspaceId, id: number, m: EntityManager): Promise<void> {
    const seq = await this.sequences.findOne(ws, { id }, m);
    if (!seq)
      throw ApiError.validation('sequence_id', 'sequence_id does not name a sequence of this workspace');
    if (seq.status !== 'published' || !seq.steps?.length)
      throw ApiError.validation('sequence_id', 'sequence_id must name a published sequence with steps');
  }

  async create(ws: WorkspaceId, campaignId: number, body: CreateSubsequenceDto): Promise<SubsequenceView> {
    const trigger = parseTrigger(body.trigger);
    return this.db.transaction(async (m) => {
      await this.campaignOrNotFound(ws, campaignId, m);
      const existing = await this.subsequences.ofCampaign(ws, campaignId, m);
      if (existing.length >= MAX_SUBSEQUENCES)
        throw ApiError.validation('campaign_id', `A campaign has at most ${MAX_SUBSEQUENCES} subsequences`);
      await this.checkSequence(ws, body.sequence_id, m);
      const last = existing.reduce((max, s) => Math.max(max, s.position), -1);
      const row = await this.subsequences.insert(
        ws,
        {
          campaignId,
          name: body.name,
          trigger,
          sequenceId: body.sequence_id,
          startAfterDays: body.start_after_days ?? 0,
          position: body.position ?? last + 1,
          status: 'active',
        },
        m,
      );
      return toSubsequenceView(row);
    });
  }

  async list(ws: WorkspaceId, campaignId: number): Promise<Subsequence[]> {
    return this.db.transaction(async (m) => {
      const campaign = await this.campaigns.findOne(ws, { id: campaignId }, m);
      if (!campaign) throw ApiError.notFound();
      return this.subsequences.ofCampaign(ws, campaignId, m);
    });
  }

  async show(ws: WorkspaceId, campaignId: number, id: number): Promise<SubsequenceView> {
    const row = await this.subsequences.findOne(ws, { campaignId, id });
    if (!row) throw ApiError.notFound();
    return toSubsequenceView(row);
  }

  async update(
    ws: WorkspaceId,
    campaignId: number,
    id: number,
    body: UpdateSubsequenceDto,
  ): Promise<SubsequenceView> {
    const trigger = body.trigger === undefined ? undefined : parseTrigger(body.trigger);
    return this.db.transaction(async (m) => {
      const row = await this.subsequences.findOneForUpdate(ws, { campaignId, id }, m);
      if (!row) throw ApiError.notFound();
      const fields: Partial<Subsequence> = {};
      if (body.name !== undefined) fields.name = body.name;
      if (trigger !== undefined) fields.trigger = trigger;
      if (body.start_after_days !== undefined) fields.startAfterDays = body.start_after_days;
      if (body.position !== undefined) fields.position = body.position;
      if (body.status !== undefined) fields.status = body.status;
      if (Object.keys(fields).length) await this.subsequences.saveChanges(ws, id, fields, m);
      return toSubsequenceView({ ...row, ...fields });
    });
  }

  async remove(ws: WorkspaceId, campaignId: number, id: number): Promise<void> {
    await this.db.transaction(async (m) => {
      const row = await this.subsequences.findOneForUpdate(ws, { campaignId, id }, m);
      if (!row) throw ApiError.notFound();
      // Its unfinished enrollments would otherwise have no sequence left to run.
      await this.transitions.stopAllOfSubsequence(ws, id, 'subsequence deleted', m);
      await this.subsequences.remove(ws, campaignId, id, m);
    });
  }
}
