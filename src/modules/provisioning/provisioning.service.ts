/**
 * Agency provisioning: the organization comes from the key; the plan cap is enforced in
 * the creating transaction; a full-scope workspace key is minted in the same transaction.
 * Provisioning never touches contacts, inboxes, sequences or campaigns.
 */
import { Injectable } from '@nestjs/common';
import type { OrganizationTenant } from '../../common/auth/principal.js';
import { WORKSPACE_SCOPES } from '../../common/auth/scopes.js';
import type { Page, PageQueryDto } from '../../common/http/pagination.js';
import { ApiKeysService } from '../api-keys/api-keys.service.js';
import type { Workspace } from '../workspaces/entities/workspace.entity.js';
import { WorkspacesRepository } from '../workspaces/workspaces.repository.js';
import type { WorkspaceConfig } from '../workspaces/workspace-config.js';
import { WorkspacesService } from '../workspaces/workspaces.service.js';
import { toWorkspaceView, type WorkspaceView } from '../workspaces/workspace.view.js';
import type { CreateWorkspaceDto } from './dto/provisioning.dto.js';

@Injectable()
export class ProvisioningService {
  constructor(
    private readonly workspaces: WorkspacesService,
    private readonly keys: ApiKeysService,
    private readonly workspaceRows: WorkspacesRepository,
  ) {}

  async create(org: OrganizationTenant, body: CreateWorkspaceDto) {
    const { workspace, extra } = await this.workspaces.create(
      org.organizationId,
      body.name,
      (body.config ?? {}) as Partial<WorkspaceConfig>,
      (manager, ws) =>
        this.keys.create(
          {
            tier: 'workspace',
            workspaceId: ws.id,
            scopes: [...WORKSPACE_SCOPES],
            name: `${ws.name} (provisioned)`,
            createdByKeyId: org.keyId,
          },
          manager,
        ),
    );
    const minted = extra!;
    return {
      workspace: toWorkspaceView(workspace),
      api_key: {
        id: minted.key.id,
        name: minted.key.name,
        prefix: minted.key.prefix,
        scopes: minted.key.scopes,
        token: minted.token,
      },
    };
  }

  async seed(org: OrganizationTenant, id: string, config: Partial<WorkspaceConfig>): Promise<WorkspaceView> {
    return toWorkspaceView(await this.workspaces.mergeConfig(org.organizationId, id, config));
  }

  async show(org: OrganizationTenant, id: string): Promise<WorkspaceView> {
    return toWorkspaceView(await this.workspaces.findInOrganization(org.organizationId, id));
  }

  async list(
    org: OrganizationTenant,
    query: PageQueryDto,
  ): Promise<{ page: Page<Workspace>; map: (w: Workspace) => WorkspaceView }> {
    return { page: await this.workspaceRows.page(org.organizationId, query), map: toWorkspaceView };
  }
}
