/**
 * What the operator lets a workspace choose for reply categorisation (CONTRACT §26): the shape of an
 * `ai_model`, the models allowed per provider (`AI_MODELS`) and the highest `ai_daily_limit`
 * (`AI_DAILY_LIMIT_MAX`). Pure; read by app-config.ts and checked again where a model is used.
 */

/**
 * The shape every `ai_model` must have: a letter or digit, then letters, digits, `.`, `_`, `:`, `-`, at
 * most 100 characters. No `/`, `%`, `#`, `?` or space: a model name is one path segment of Google's URL
 * and a value in the others' bodies, never a way to reach another path with the operator's key.
 */
export const AI_MODEL_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/;

export const AI_MODEL_PROVIDERS = ['openai', 'anthropic', 'google', 'mistral'] as const;
export type AiModelProvider = (typeof AI_MODEL_PROVIDERS)[number];

/** The default and the ceiling of `AI_DAILY_LIMIT_MAX`. */
export const AI_DAILY_LIMIT_MAX_DEFAULT = 10_000;
export const AI_DAILY_LIMIT_MAX_CEILING = 1_000_000;

/**
 * Models allowed per provider: a set of names, or `'*'` for any name of the allowed shape. A provider
 * absent from the map allows any model (no `AI_MODELS` set: the operator restricts nothing but the shape).
 */
export type AiModelAllowList = Partial<Record<AiModelProvider, ReadonlySet<string> | '*'>>;

export class AiModelsError extends Error {}

export function isAiModelName(model: string): boolean {
  return AI_MODEL_PATTERN.test(model);
}

/**
 * Parses `AI_MODELS`: `provider:model,model;provider:*`, e.g.
 * `openai:gpt-4o-mini,gpt-4o;anthropic:claude-haiku-4-5;google:*`. Providers not named may not be used
 * at all once the variable is set; an empty or absent variable allows every provider and any model of
 * the allowed shape (an empty map). Throws `AiModelsError` naming what is wrong.
 */
export function parseAiModels(raw: string | undefined): {
  allowed: AiModelAllowList;
  restricted: boolean;
} {
  const text = (raw ?? '').trim();
  if (text === '') return { allowed: {}, restricted: false };
  const allowed: AiModelAllowList = {};
  for (const part of text.split(';')) {
    const entry = part.trim();
    if (entry === '') continue;
    const colon = entry.indexOf(':');
    if (colon <= 0) throw new AiModelsError(`AI_MODELS: "${entry}" is not provider:model,model`);
    const provider = entry.slice(0, colon).trim().toLowerCase();
    if (!(AI_MODEL_PROVIDERS as readonly string[]).includes(provider)) {
      throw new AiModelsError(
        `AI_MODELS: unknown provider "${provider}" (one of ${AI_MODEL_PROVIDERS.join(', ')})`,
      );
    }
    const p = provider as AiModelProvider;
    if (allowed[p] !== undefined) throw new AiModelsError(`AI_MODELS: provider "${p}" named twice`);
    const models = entry
      .slice(colon + 1)
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean);
    if (models.length === 0) throw new AiModelsError(`AI_MODELS: no model listed for "${p}"`);
    if (models.includes('*')) {
      if (models.length > 1) throw new AiModelsError(`AI_MODELS: "${p}:*" lists models beside *`);
      allowed[p] = '*';
      continue;
    }
    for (const m of models) {
      if (!isAiModelName(m)) throw new AiModelsError(`AI_MODELS: "${m}" is not a valid model name`);
    }
    allowed[p] = new Set(models);
  }
  if (Object.keys(allowed).length === 0) throw new AiModelsError('AI_MODELS: no provider listed');
  return { allowed, restricted: true };
}

/**
 * Whether a workspace may use `model` with `provider`: the shape always, and the operator's list when
 * `AI_MODELS` is set (a provider it does not name allows nothing).
 */
export function isAiModelAllowed(
  models: { allowed: AiModelAllowList; restricted: boolean },
  provider: AiModelProvider,
  model: string,
): boolean {
  if (!isAiModelName(model)) return false;
  if (!models.restricted) return true;
  const list = models.allowed[provider];
  if (list === undefined) return false;
  return list === '*' || list.has(model);
}
