/** Every scope a key can hold. One list, used by validation, the guard and OpenAPI. */
export const WORKSPACE_SCOPES = [
  'contacts:read',
  'contacts:write',
  'sequences:read',
  'sequences:write',
  'campaigns:read',
  'campaigns:write',
  'enrollments:read',
  'enrollments:write',
  'imports:read',
  'imports:write',
  'inboxes:read',
  'inboxes:write',
  'threads:read',
  'threads:write',
  'analytics:read',
  'webhooks:manage',
] as const;

export const PROVISIONING_SCOPES = ['workspaces:create', 'workspaces:configure'] as const;

export type WorkspaceScope = (typeof WORKSPACE_SCOPES)[number];
export type ProvisioningScope = (typeof PROVISIONING_SCOPES)[number];
export type Scope = WorkspaceScope | ProvisioningScope;

export const DEFAULT_RATE_LIMIT = { workspace: 600, provisioning: 120 } as const;
