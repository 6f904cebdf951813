/**
 * Workspace config keys (CONTRACT §7): the single source the sending engine reads and OpenAPI documents.
 */
export interface WorkspaceConfig {
  domain_daily_send_limit: number;
  unsubscribe_footer_enabled: boolean;
  message_body_retention_days: number;
  ai_provider: 'openai' | 'anthropic' | 'google' | 'mistral' | 'none';
  ai_model: string | null;
}

export const AI_PROVIDERS = ['openai', 'anthropic', 'google', 'mistral', 'none'] as const;

export const DEFAULT_WORKSPACE_CONFIG: WorkspaceConfig = {
  domain_daily_send_limit: 500,
  unsubscribe_footer_enabled: true,
  message_body_retention_days: 365,
  ai_provider: 'none',
  ai_model: null,
};

export function effectiveConfig(stored: Partial<WorkspaceConfig> | null | undefined): WorkspaceConfig {
  return { ...DEFAULT_WORKSPACE_CONFIG, ...(stored ?? {}) };
}
