/** An API key as `GET /me` and the CLI show it (never its secret or hash). */
import type { KeyTier } from '../../common/auth/token.js';
import type { ApiKey } from './entities/api-key.entity.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

export interface ApiKeyView {
  id: number;
  tier: KeyTier;
  name: string;
  prefix: string;
  scopes: string[];
  workspace_id: WorkspaceId | null;
  organization_id: string | null;
  expires_at: string | null;
  allowed_ips: string[];
  rate_limit: number | null;
  revoked_at: string | null;
  last_used_at: string | null;
  created_at: string;
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

export const toApiKeyView = (k: ApiKey): ApiKeyView => ({
  id: k.id,
  tier: k.tier,
  name: k.name,
  prefix: k.prefix,
  scopes: k.scopes,
  workspace_id: k.workspaceId,
  organization_id: k.organizationId,
  expires_at: iso(k.expiresAt),
  allowed_ips: k.allowedIps,
  rate_limit: k.rateLimit,
  revoked_at: iso(k.revokedAt),
  last_used_at: iso(k.lastUsedAt),
  created_at: k.createdAt.toISOString(),
});
