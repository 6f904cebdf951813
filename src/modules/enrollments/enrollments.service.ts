/**
 * Enrollments . Creation checks, in this order: the campaign exists (404),
 * is active and its sequence is published with steps (422 campaign_id), the contact exists, is sendable
 * and is not already enrolled (422 contact_id). The insert and the `enrolled` metric share one
 * transaction, with the campaign row share-locked so a concurrent pause cannot slip in between.
 * pause/resume/stop lock the enrollment row and consult the transition table, so a race between two
 * actions ends in one success and one 409.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ApiError } from '../../common/http/api-error.js';
import type { Page } from '../../common/http/pagination.js';
import { MetricCounters } from '../analytics/metrics.js';
import { CampaignsRepository } from '../campaigns/campaigns.repository.js';
import { ContactsRepository } from '../contacts/contacts.repository.js';
import { SequencesRepository } from '../sequences/sequences.repository.js';
import { SuppressionsRepository } from '../suppressions/suppressions.repository.js';
import type { ListEnrollmentsQueryDto, StopEnrollmentDto } from './dto/enrollment.dto.js';
import { nextEnrollmentStatus, type EnrollmentAction } from './enrollment-state.js';
import { Enrollment } from './entities/enrollment.entity.js';
import { EnrollmentsRepository } from './enrollments.repository.js';
import { toEnrollmentView, type EnrollmentView } from './enrollment.view.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

@Injectable()
export class EnrollmentsService {
  constructor(
    private readonly enrollments: EnrollmentsRepository,
    private readonly campaigns: CampaignsRepository,
    private readonly sequences: SequencesRepository,
    private readonly contacts: ContactsRepository,
    private readonly suppressions: SuppressionsRepository,
    @InjectDataSource() private readonly db: DataSource,
    private readonly counters: MetricCounters,
  ) {}

  async create(workspaceId: WorkspaceId, campaignId: number, contactId: number): Promise<EnrollmentView> {
    return this.db.transaction(async (manager) => {
      const campaign = await this.campaigns.findForShare(workspaceId, campaignId, manager);
      if (!campaign) throw ApiError.notFound();
      if (campaign.status !== 'active') {
        throw ApiError.validation(
          'campaign_id',
          `The campaign is ${campaign.status}; only an active campaign enrolls`,
        );
      }
      const sequence =
        campaign.sequenceId === null
          ? null
          : await this.sequences.findOne(workspaceId, { id: campaign.sequenceId }, manager);
      if (!sequence || sequence.status !== 'published') {
        throw ApiError.validation('campaign_id', 'The campaign’s sequence is not published');
      }
      const first = [...(sequence.steps ?? [])].sort((a, b) => a.position - b.position)[0];
      if (!first) throw ApiError.validation('campaign_id', 'The campaign’s sequence has no steps');

      const contact = await this.contacts.findOne(workspaceId, { id: contactId }, manager);
      if (!contact)
        throw ApiError.validation('contact_id', 'contact_id does not name a contact of this workspace');
      if (
        contact.suppressionReason !== null ||
        (await this.suppressions.isListed(workspaceId, contact.email, manager))
      ) {
        throw ApiError.validation('contact_id', 'The contact is not sendable (suppressed)');
      }

      const now = new Date();
      const id = await this.enrollments.insertIfAbsent(
        workspaceId,
        {
          campaignId,
          contactId,
          status: 'active',
          currentStep: 0,
          nextStepAt: new Date(now.getTime() + first.delay_minutes * 60_000),
        },
        manager,
      );
      if (id === null) {
        throw ApiError.validation('contact_id', 'The contact is already enrolled in this campaign');
      }
      await this.counters.bump(manager, workspaceId, campaignId, 'enrolled', 1, now);
      const row = await this.enrollments.findOne(workspaceId, { id }, manager);
      return toEnrollmentView(row!);
    });
  }

  async show(workspaceId: WorkspaceId, id: number): Promise<EnrollmentView> {
    const row = await this.enrollments.findOne(workspaceId, { id });
    if (!row) throw ApiError.notFound();
    return toEnrollmentView(row);
  }

  async list(workspaceId: WorkspaceId, query: ListEnrollmentsQueryDto): Promise<Page<Enrollment>> {
    return this.enrollments.page(workspaceId, query, {
      campaignId: query.campaign_id,
      contactId: query.contact_id,
      subsequenceId: query.subsequence_id,
      statuses: query.status?.length ? [...new Set(query.status)] : undefined,
    });
  }

  pause(workspaceId: WorkspaceId, id: number): Promise<EnrollmentView> {
    return this.transition(workspaceId, id, 'pause');
  }

  resume(workspaceId: WorkspaceId, id: number): Promise<EnrollmentView> {
    return this.transition(workspaceId, id, 'resume');
  }

  stop(workspaceId: WorkspaceId, id: number, body: StopEnrollmentDto): Promise<EnrollmentView> {
    return this.transition(workspaceId, id, 'stop', body.reason);
  }

  private async transition(
    workspaceId: WorkspaceId,
    id: number,
    action: Exclude<EnrollmentAction, 'complete'>,
    note?: string,
  ): Promise<EnrollmentView> {
    return this.db.transaction(async (manager) => {
      const row = await this.enrollments.findOneForUpdate(workspaceId, { id }, manager);
      if (!row) throw ApiError.notFound();
      const next = nextEnrollmentStatus(row.status, action);
      if (next === null) throw ApiError.conflict(`A ${row.status} enrollment cannot ${action}`);
      const patch: Partial<Enrollment> = { status: next };
      if (action === 'stop') {
        patch.stopReason = 'manual';
        patch.stopNote = note ?? null;
        patch.stoppedAt = new Date();
        patch.nextStepAt = null;
      }
      await this.enrollments.setStatus(workspaceId, id, patch, manager);
      const fresh = await this.enrollments.findOne(workspaceId, { id }, manager);
      return toEnrollmentView(fresh!);
    });
  }
}
