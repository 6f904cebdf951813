import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import { paginate, type Page, type PageQueryDto } from '../../common/http/pagination.js';
import { TenantRepository } from '../../common/tenant/tenant.repository.js';
import { rows } from '../../database/query-rows.js';
import { Workspace } from '../workspaces/entities/workspace.entity.js';
import { Inbox } from './entities/inbox.entity.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

@Injectable()
export class InboxesRepository extends TenantRepository<Inbox> {
  constructor(@InjectRepository(Inbox) repo: Repository<Inbox>) {
    super(repo);
  }

  /** Caches the domain health check shown on the inbox, and ends the claim on checking it. */
  async cacheHealth(workspaceId: WorkspaceId, id: string, health: Inbox['health']): Promise<void> {
    await this.scope(workspaceId).update({ id }, { health, healthCheckingUntil: null });
  }

  /**
   * Claims checking the inbox's domain health for `ms` milliseconds: true when no other process
   * holds an unexpired claim (one check per inbox at a time across processes).
   */
  async claimHealthCheck(workspaceId: WorkspaceId, id: string, ms: number): Promise<boolean> {
    const claimed = await rows(
      this.unscoped().manager,
      `UPDATE inboxes SET health_checking_until = now() + $3 * interval '1 millisecond'
        WHERE workspace_id = $1 AND id = $2
          AND (health_checking_until IS NULL OR health_checking_until < now())
        RETURNING id`,
      [workspaceId, id, ms],
    );
    return claimed.length === 1;
  }

  /** Ends a claim on checking the inbox's health that produced no answer. */
  async releaseHealthCheck(workspaceId: WorkspaceId, id: string): Promise<void> {
    await this.scope(workspaceId).update({ id }, { healthCheckingUntil: null });
  }

  /**
   * An inbox connected again (`inbox:connect` of an existing address): its new settings and
   * credentials; the last error, the IMAP position and the cached health start over.
   */
  async reconnect(
    workspaceId: WorkspaceId,
    id: string,
    settings: Partial<Inbox>,
    manager?: EntityManager,
  ): Promise<void> {
    await this.scope(workspaceId, manager).update(
      { id },
      {
        ...settings,
        lastError: null,
        imapUidValidity: null,
        imapLastUid: null,
        apiCheckpoint: null,
        sendHeldUntil: null,
        health: null,
      },
    );
  }

  /** Stores a change of the inbox's settings (`PATCH /inboxes/{id}`). */
  async applySettings(
    workspaceId: WorkspaceId,
    id: string,
    patch: Partial<Inbox>,
    manager: EntityManager,
  ): Promise<void> {
    await this.scope(workspaceId, manager).update({ id }, patch);
  }

  /** The repository bound to a transaction (or the DataSource's manager), for code outside Nest's DI. */
  static for(manager: EntityManager): InboxesRepository {
    return new InboxesRepository(manager.getRepository(Inbox));
  }

  page(workspaceId: WorkspaceId, query: PageQueryDto): Promise<Page<Inbox>> {
    return paginate(this.query(workspaceId, 'i'), 'i', query, {
      tenant: workspaceId,
      route: 'inboxes.index',
    });
  }

  /** The workspace row, locked for the rest of the transaction (connecting an inbox). */
  lockWorkspace(workspaceId: WorkspaceId, manager: EntityManager): Promise<Workspace | null> {
    return manager
      .getRepository(Workspace)
      .findOne({ where: { id: workspaceId }, lock: { mode: 'pessimistic_write' } });
  }

  /**
   * Marks an OAuth inbox whose grant the provider refused; nothing is sent from it until it is
   * connected again. Returns the inbox when this call changed its status (null: already marked, or
   * reconnected since `connectedAt`).
   */
  async markReauthRequired(
    workspaceId: WorkspaceId,
    inboxId: string,
    connectedAt: Date,
    error: string,
    m: EntityManager,
  ): Promise<{ id: string; email: string } | null> {
    const [changed] = await rows<{ id: string; email: string }>(
      m,
      `UPDATE inboxes SET status = 'reauth_required', last_error = $4, last_error_at = now(), updated_at = now()
       WHERE workspace_id = $1 AND id = $2 AND auth = 'oauth2' AND oauth_connected_at = $3
         AND status <> 'reauth_required'
       RETURNING id, email`,
      [workspaceId, inboxId, connectedAt, error],
    );
    return changed ?? null;
  }

  /** Stores a refresh token the provider rotated, unless the inbox was reconnected meanwhile. */
  async storeRotatedRefreshToken(
    workspaceId: WorkspaceId,
    inboxId: string,
    connectedAt: Date,
    sealed: string,
  ): Promise<void> {
    await this.unscoped().query(
      `UPDATE inboxes SET oauth_sealed = $4 WHERE workspace_id = $1 AND id = $2 AND oauth_connected_at = $3`,
      [workspaceId, inboxId, connectedAt, sealed],
    );
  }

  /** `POST /inbound/{inbox_id}` knows only the inbox id until its secret is checked. */
  findByIdAcrossWorkspaces(inboxId: string, manager?: EntityManager): Promise<Inbox | null> {
    return this.unscoped(manager).findOne({ where: { id: inboxId } });
  }
}
