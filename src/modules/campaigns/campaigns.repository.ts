import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { TenantRepository } from '../../common/tenant/tenant.repository.js';
import { Campaign } from './entities/campaign.entity.js';
import { paginate, type Page, type PageQueryDto } from '../../common/http/pagination.js';
import type { EntityManager } from 'typeorm';
import { rows } from '../../database/query-rows.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

@Injectable()
export class CampaignsRepository extends TenantRepository<Campaign> {
  constructor(@InjectRepository(Campaign) repo: Repository<Campaign>) {
    super(repo);
  }

  /** Stores a campaign's settings and status as a change (`PATCH /campaigns/{id}`) left them. */
  async saveChanges(
    workspaceId: WorkspaceId,
    id: number,
    fields: Partial<Campaign>,
    manager: EntityManager,
  ): Promise<void> {
    await this.scope(workspaceId, manager).update({ id }, fields);
  }

  /** A page of the workspace's rows, newest first. */
  page(workspaceId: WorkspaceId, query: PageQueryDto): Promise<Page<Campaign>> {
    return paginate(this.query(workspaceId, 'c'), 'c', query, {
      tenant: workspaceId,
      route: 'campaigns.index',
    });
  }

  /** The campaign, share-locked for the rest of the transaction (enrolling: it cannot change status meanwhile). */
  findForShare(workspaceId: WorkspaceId, id: number, manager: EntityManager): Promise<Campaign | null> {
    return this.scope(workspaceId, manager).findOneForShare({ id });
  }
}

/** A campaign's recent sends as bounce protection counts them, with its workspace's config. */
export interface RecentSendOutcomes {
  sends: number;
  bounced: number;
  config: Record<string, unknown> | null;
}

/**
 * Statements the send path and mail ingestion run on a campaign, in their own transaction (bounce
 * protection). Stateless: every method takes the manager.
 */
@Injectable()
export class CampaignGuardsRepository {
  /**
   * Of the active campaign's last `window` sends (outbound messages handed to SMTP: `sent` or
   * `failed`) since its bounce window began, how many hard bounced; undefined when the campaign is
   * not active. The newest sends of the workspace are read backwards over (workspace_id, created_at,
   * id) and kept when their thread is the campaign's, and never further back than the window's start
   * or, without one, the campaign's activation (it sent nothing before): the walk is bounded by the
   * workspace's traffic since then, not by the workspace's whole history.
   */
  async recentSendOutcomes(
    workspaceId: WorkspaceId,
    campaignId: number,
    window: number,
    manager: EntityManager,
  ): Promise<RecentSendOutcomes | undefined> {
    const [found] = await rows<RecentSendOutcomes>(
      manager,
      `SELECT w.config, r.sends, r.bounced
       FROM campaigns c JOIN workspaces w ON w.id = c.workspace_id,
       LATERAL (
         SELECT count(*)::int AS sends, count(x.bounced_at)::int AS bounced FROM (
           SELECT m.bounced_at FROM messages m JOIN threads t ON t.id = m.thread_id
           WHERE m.workspace_id = c.workspace_id AND t.campaign_id = c.id AND m.direction = 'outbound'
             AND m.status IN ('sent', 'failed') AND m.created_at >= coalesce(c.bounce_window_started_at, c.activated_at, '-infinity')
           ORDER BY m.created_at DESC, m.id DESC LIMIT $3) x
       ) r
       WHERE c.workspace_id = $1 AND c.id = $2 AND c.status = 'active'`,
      [workspaceId, campaignId, window],
    );
    return found;
  }

  /** Pauses the campaign for its bounce rate, if it is still active; whether it did. */
  async pauseForBounceRate(
    workspaceId: WorkspaceId,
    campaignId: number,
    manager: EntityManager,
  ): Promise<boolean> {
    const paused = await rows(
      manager,
      `UPDATE campaigns SET status = 'paused', paused_reason = 'bounce_rate', updated_at = now()
       WHERE workspace_id = $1 AND id = $2 AND status = 'active' RETURNING id`,
      [workspaceId, campaignId],
    );
    return paused.length > 0;
  }
}
