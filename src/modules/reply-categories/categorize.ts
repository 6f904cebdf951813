/**
 * The entry point: a reply's category, from the workspace's AI provider when one is set and answers
 * well, from the built-in rules otherwise (CONTRACT §20). Never throws for a provider's failure and
 * never logs the reply, the prompt or the answer.
 */
import { isAiModelName } from '../../config/ai-models.js';
import type { WorkspaceConfig } from '../workspaces/workspace-config.js';
import { AI_PROVIDER_NAMES, type AiAdapter, type AiProviderName } from './ai/ai-adapter.js';
import { askAnthropic, loadAnthropicSdk } from './ai/anthropic.adapter.js';
import { askGoogle, loadGoogleSdk } from './ai/google.adapter.js';
import { askMistral, loadMistralSdk } from './ai/mistral.adapter.js';
import { askOpenAi, loadOpenAiSdk } from './ai/openai.adapter.js';
import type { ReplyCategory } from '../threads/reply-category.js';
import { replyText } from '../mail-reading/reply-text.js';
import { classifyByRules } from './rules-classifier.js';

/** The provider call's bound (CONTRACT §20). */
export const AI_TIMEOUT_MS = 10_000;

export interface CategorizeSettings {
  /** The workspace's `ai_provider`; `none` (the default) calls nothing. */
  provider: WorkspaceConfig['ai_provider'];
  /** The workspace's `ai_model`; without one the rules decide. */
  model: string | null;
  /** The operator's keys (`OPENAI_API_KEY`, …): see {@link aiCredentialsFromEnv}. */
  apiKeys: Partial<Record<AiProviderName, string>>;
  /** Overridden API roots (`OPENAI_BASE_URL`, …); the public ones when absent. */
  baseUrls?: Partial<Record<AiProviderName, string>>;
  /** The call's bound; {@link AI_TIMEOUT_MS} unless a test shortens it. */
  timeoutMs?: number;
  /**
   * Asked just before a provider would be called: false keeps to the rules. Phase 2 passes the
   * workspace's `ai_daily_limit` counter here (it counts the call when it answers true).
   */
  allowCall?: () => Promise<boolean>;
  /** The operator's `AI_MODELS`: false keeps to the rules (`invalid_model`). */
  allowModel?: (provider: AiProviderName, model: string) => boolean;
}

/** Why the rules decided although a provider was set; for metrics, never with any text. */
export type AiFallbackReason =
  | 'no_model'
  | 'invalid_model'
  | 'no_key'
  | 'empty_reply'
  | 'daily_limit'
  | 'timeout'
  | 'error'
  | 'invalid_answer';

export interface CategorizeResult {
  category: ReplyCategory;
  source: 'rules' | 'ai';
  /** Set when a provider was configured but the rules decided. */
  fallback?: AiFallbackReason;
}

export const AI_ADAPTERS: Readonly<Record<AiProviderName, AiAdapter>> = {
  openai: askOpenAi,
  anthropic: askAnthropic,
  google: askGoogle,
  mistral: askMistral,
};

/**
 * Each provider's SDK, loaded before the bound's clock starts: the bound is the provider's time to
 * answer, and loading an SDK the first time in a process took over a second on a loaded machine.
 */
const AI_SDKS: Readonly<Record<AiProviderName, () => Promise<unknown>>> = {
  openai: loadOpenAiSdk,
  anthropic: loadAnthropicSdk,
  google: loadGoogleSdk,
  mistral: loadMistralSdk,
};

const ENV_PREFIX: Readonly<Record<AiProviderName, string>> = {
  openai: 'OPENAI',
  anthropic: 'ANTHROPIC',
  google: 'GOOGLE',
  mistral: 'MISTRAL',
};

/**
 * The operator's keys and base URLs from the environment: `OPENAI_API_KEY`/`OPENAI_BASE_URL`,
 * `ANTHROPIC_…`, `GOOGLE_…` (`GEMINI_API_KEY` too, the name Google's docs also use), `MISTRAL_…`.
 */
export function aiCredentialsFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): Pick<CategorizeSettings, 'apiKeys' | 'baseUrls'> {
  const apiKeys: CategorizeSettings['apiKeys'] = {};
  const baseUrls: NonNullable<CategorizeSettings['baseUrls']> = {};
  for (const provider of AI_PROVIDER_NAMES) {
    const prefix = ENV_PREFIX[provider];
    const key = env[`${prefix}_API_KEY`] || (provider === 'google' ? env.GEMINI_API_KEY : undefined);
    if (key) apiKeys[provider] = key;
    const baseUrl = env[`${prefix}_BASE_URL`];
    if (baseUrl) baseUrls[provider] = baseUrl;
  }
  return { apiKeys, baseUrls };
}

/**
 * Runs the adapter with an abort signal that fires at the bound, and stops waiting for it then even if
 * it ignores the signal. Resolves `timedOut` rather than throwing for the bound.
 */
async function withinBound<T>(
  timeoutMs: number,
  run: (signal: AbortSignal) => Promise<T>,
): Promise<{ timedOut: true } | { timedOut: false; value: T }> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<{ timedOut: true }>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve({ timedOut: true });
    }, timeoutMs);
  });
  try {
    return await Promise.race([
      run(controller.signal).then((value) => ({ timedOut: false as const, value })),
      expired,
    ]);
  } catch (err) {
    // The adapter's own abort error, raced just before our timer's resolution.
    if (controller.signal.aborted) return { timedOut: true };
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * What the built-in rules decide without calling anything (the first step, CONTRACT §26): the rules'
 * category, and whether a provider would be asked at all (`needsAi`: a provider, an allowed model, a
 * key and some text). Pure.
 */
export function rulesFirst(
  body: string,
  settings: CategorizeSettings,
): { result: CategorizeResult; needsAi: boolean; text: string } {
  const text = replyText(body);
  const byRules = (fallback?: AiFallbackReason) => ({
    result: { category: classifyByRules(text), source: 'rules' as const, ...(fallback ? { fallback } : {}) },
    needsAi: false,
    text,
  });
  const provider = settings.provider;
  if (provider === 'none') return byRules();
  const model = settings.model?.trim();
  if (!model) return byRules('no_model');
  // Checked where it is used too: a model stored before the shape was enforced never reaches a request.
  if (!isAiModelName(model) || settings.allowModel?.(provider, model) === false)
    return byRules('invalid_model');
  if (!settings.apiKeys[provider]) return byRules('no_key');
  if (text === '') return byRules('empty_reply');
  return { ...byRules(), needsAi: true };
}

/**
 * The category of an inbound reply (its whole text body: quoted history and signature are removed
 * here, and only what remains is classified or sent to a provider).
 */
export async function categorize(body: string, settings: CategorizeSettings): Promise<CategorizeResult> {
  const first = rulesFirst(body, settings);
  if (!first.needsAi) return first.result;
  const text = first.text;
  const byRules = (fallback?: AiFallbackReason): CategorizeResult => ({
    category: first.result.category,
    source: 'rules',
    ...(fallback ? { fallback } : {}),
  });
  const provider = settings.provider as AiProviderName;
  const model = settings.model!.trim();
  const apiKey = settings.apiKeys[provider]!;
  if (settings.allowCall) {
    // A counter that cannot be read (Redis down) must not fail the categorisation: the rules decide.
    const allowed = await settings.allowCall().catch(() => null);
    if (allowed === null) return byRules('error');
    if (!allowed) return byRules('daily_limit');
  }
  const timeoutMs = settings.timeoutMs ?? AI_TIMEOUT_MS;
  try {
    await AI_SDKS[provider]();
    const outcome = await withinBound(timeoutMs, (signal) =>
      AI_ADAPTERS[provider]({
        text,
        model,
        apiKey,
        baseUrl: settings.baseUrls?.[provider],
        signal,
        // The SDK's own timer is only a backstop: ours fires first and is reported as `timeout`.
        timeoutMs: timeoutMs + 1_000,
      }),
    );
    if (outcome.timedOut) return byRules('timeout');
    return outcome.value ? { category: outcome.value, source: 'ai' } : byRules('invalid_answer');
  } catch {
    // An HTTP error, a refused connection, an SDK's own timeout: nothing of it is logged (an SDK's
    // error message may quote the provider's answer).
    return byRules('error');
  }
}
