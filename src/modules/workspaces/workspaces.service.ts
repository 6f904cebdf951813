/**
 * Workspaces inside an organization. Creation enforces the plan's workspace cap in the same
 * transaction as the insert, with the organization row locked, so concurrent creates cannot pass it.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { ApiError } from '../../common/http/api-error.js';
import { isUuid } from '../../common/http/id-params.js';
import type { Workspace } from './entities/workspace.entity.js';
import { WorkspacesRepository } from './workspaces.repository.js';
import { aiCapBreach, effectiveConfig, type WorkspaceConfig } from './workspace-config.js';
import { appConfig } from '../../config/app-config.js';

/** The merged config, or 422 naming the key that breaks the operator's AI caps. */
function withinAiCaps(merged: WorkspaceConfig, patch: Partial<WorkspaceConfig>): WorkspaceConfig {
  const breach = aiCapBreach(merged, patch, appConfig().ai);
  if (breach) throw ApiError.validation(breach.field, breach.message);
  return merged;
}
import { asWorkspaceId } from '../../common/tenant/workspace-id.js';

@Injectable()
export class WorkspacesService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly workspaces: WorkspacesRepository,
  ) {}

  /** Creates a workspace; `then` runs in the same transaction (e.g. to mint its first key). */
  async create<T = undefined>(
    organizationId: string,
    name: string,
    config: Partial<WorkspaceConfig> = {},
    then?: (manager: EntityManager, workspace: Workspace) => Promise<T>,
  ): Promise<{ workspace: Workspace; extra: T | undefined }> {
    const trimmed = name?.trim() ?? '';
    if (!trimmed || trimmed.length > 200)
      throw ApiError.validation('name', 'name must be 1 to 200 characters');
    const initial = withinAiCaps(effectiveConfig(config), config);
    return this.db.transaction(async (manager) => {
      const org = isUuid(organizationId)
        ? await this.workspaces.lockOrganization(organizationId, manager)
        : null;
      if (!org) throw ApiError.notFound('Organization');
      const count = await this.workspaces.countInOrganization(organizationId, manager);
      if (count >= org.maxWorkspaces) {
        throw new ApiError(
          403,
          'plan_limit_exceeded',
          `The plan allows ${org.maxWorkspaces} workspaces and all are in use`,
        );
      }
      const workspace = await this.workspaces.insert(
        organizationId,
        { name: trimmed, config: initial },
        manager,
      );
      const extra = then ? await then(manager, workspace) : undefined;
      return { workspace, extra };
    });
  }

  /**
   * A workspace of the organization. Foreign, missing and malformed ids answer the same 404 as a
   * malformed id rejected by UuidPipe, byte for byte.
   */
  async findInOrganization(organizationId: string, id: string): Promise<Workspace> {
    const ws = isUuid(id)
      ? await this.workspaces.findInOrganization(organizationId, asWorkspaceId(id.toLowerCase()))
      : null;
    if (!ws) throw ApiError.notFound();
    return ws;
  }

  async get(id: string): Promise<Workspace> {
    const ws = isUuid(id) ? await this.workspaces.findById(asWorkspaceId(id.toLowerCase())) : null;
    if (!ws) throw ApiError.notFound('Workspace');
    return ws;
  }

  /** Merges config keys into a workspace of the organization; re-running with the same input is a no-op. */
  async mergeConfig(organizationId: string, id: string, patch: Partial<WorkspaceConfig>): Promise<Workspace> {
    return this.db.transaction(async (manager) => {
      const ws = isUuid(id)
        ? await this.workspaces.findInOrganization(
            organizationId,
            asWorkspaceId(id.toLowerCase()),
            manager,
            true,
          )
        : null;
      if (!ws) throw ApiError.notFound();
      const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
      ws.config = withinAiCaps(effectiveConfig({ ...ws.config, ...defined }), defined);
      return this.workspaces.save(organizationId, ws, manager);
    });
  }
}
