import { isAiModelAllowed, type AiModelAllowList } from '../../config/ai-models.js';

/**
 * Workspace config keys: the single source the sending engine reads and OpenAPI documents.
 */
export interface WorkspaceConfig {
  domain_daily_send_limit: number;
  unsubscribe_footer_enabled: boolean;
  message_body_retention_days: number;
  ai_provider: 'openai' | 'anthropic' | 'google' | 'mistral' | 'none';
  ai_model: string | null;
  /**
   * Calls to the AI provider per UTC day (CONTRACT §20); once reached, the built-in rules categorise
   * the day's remaining replies. 0 never calls.
   */
  ai_daily_limit: number;
  /**
   * Bounce protection: a campaign whose hard bounces among its last 100 sends (once it has 20) exceed
   * this percentage is paused (`paused_reason: bounce_rate`). 0 turns it off.
   */
  bounce_rate_pause_percent: number;
  /**
   * Out of office (CONTRACT §23): days an away notice without a return date holds its enrollment's
   * next step. 0 turns holds off for such notices.
   */
  out_of_office_hold_days: number;
}

export const AI_PROVIDERS = ['openai', 'anthropic', 'google', 'mistral', 'none'] as const;

export const DEFAULT_WORKSPACE_CONFIG: WorkspaceConfig = {
  domain_daily_send_limit: 500,
  unsubscribe_footer_enabled: true,
  message_body_retention_days: 365,
  ai_provider: 'none',
  ai_model: null,
  ai_daily_limit: 1000,
  bounce_rate_pause_percent: 5,
  out_of_office_hold_days: 3,
};

/** Keys whose value may be null; any other key set to null or undefined falls back to its default. */
const NULLABLE_KEYS: ReadonlySet<string> = new Set(['ai_model']);

/**
 * The defaults overlaid with the stored (or given) keys. Undefined values are skipped: DTO instances
 * carry every declared property, undefined when absent, and must not blank out a default.
 */
export function effectiveConfig(stored: Partial<WorkspaceConfig> | null | undefined): WorkspaceConfig {
  const defined = Object.entries(stored ?? {}).filter(
    ([key, value]) =>
      key in DEFAULT_WORKSPACE_CONFIG && value !== undefined && (value !== null || NULLABLE_KEYS.has(key)),
  );
  return { ...DEFAULT_WORKSPACE_CONFIG, ...Object.fromEntries(defined) } as WorkspaceConfig;
}

/**
 * The operator's caps on what a workspace may set (CONTRACT §26): `ai_daily_limit` at most
 * `AI_DAILY_LIMIT_MAX`, and with `AI_MODELS` set, only a listed provider and model. Checked on the
 * config as it would be stored (the patch merged), only for the keys the request sets; the field and
 * message of the first breach, or null.
 */
export function aiCapBreach(
  merged: WorkspaceConfig,
  patch: Partial<WorkspaceConfig>,
  caps: { dailyLimitMax: number; models: { allowed: AiModelAllowList; restricted: boolean } },
): { field: string; message: string } | null {
  if (patch.ai_daily_limit !== undefined && merged.ai_daily_limit > caps.dailyLimitMax) {
    return {
      field: 'config.ai_daily_limit',
      message: `ai_daily_limit must be at most ${caps.dailyLimitMax} (the operator's AI_DAILY_LIMIT_MAX)`,
    };
  }
  const touched = patch.ai_provider !== undefined || patch.ai_model !== undefined;
  if (!touched || merged.ai_provider === 'none' || !caps.models.restricted) return null;
  const provider = merged.ai_provider;
  if (caps.models.allowed[provider] === undefined) {
    return { field: 'config.ai_provider', message: `ai_provider ${provider} is not allowed by the operator` };
  }
  if (merged.ai_model !== null && !isAiModelAllowed(caps.models, provider, merged.ai_model)) {
    return {
      field: 'config.ai_model',
      message: `ai_model ${merged.ai_model} is not allowed for ${provider} by the operator`,
    };
  }
  return null;
}
