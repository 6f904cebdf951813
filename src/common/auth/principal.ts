import type { KeyTier } from './token.js';
import type { WorkspaceId } from '../tenant/workspace-id.js';

/** The resolved credential of a request: who is calling, for which tenant, with what rights. */
export interface Principal {
  keyId: number;
  tier: KeyTier;
  name: string;
  prefix: string;
  scopes: string[];
  /** Set for workspace keys only. */
  workspaceId: WorkspaceId | null;
  /** The organization of the key (provisioning) or of its workspace (workspace keys). */
  organizationId: string;
  rateLimit: number;
  expiresAt: Date | null;
  allowedIps: string[];
}

/** What a workspace-data handler receives: the tenant fixed by the key, never by the request. */
export interface WorkspaceTenant {
  workspaceId: WorkspaceId;
  organizationId: string;
}

export interface OrganizationTenant {
  organizationId: string;
  keyId: number;
}
