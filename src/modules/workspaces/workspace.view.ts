/** A workspace as the provisioning API shows it. */
import type { Workspace } from './entities/workspace.entity.js';
import { effectiveConfig, type WorkspaceConfig } from './workspace-config.js';

export interface WorkspaceView {
  id: string;
  name: string;
  config: WorkspaceConfig;
  organization_id: string;
  created_at: string;
}

export const toWorkspaceView = (w: Workspace): WorkspaceView => ({
  id: w.id,
  name: w.name,
  config: effectiveConfig(w.config),
  organization_id: w.organizationId,
  created_at: w.createdAt.toISOString(),
});
