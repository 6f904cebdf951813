import { AiModelsError, isAiModelAllowed, isAiModelName, parseAiModels } from './ai-models.js';

describe('ai_model shape', () => {
  it.each([
    'gpt-4o-mini',
    'claude-haiku-4-5',
    'gemini-2.5-flash',
    'mistral-small-latest',
    'ft:gpt-4o:acme:x1',
    'a',
  ])('allows %s', (m) => expect(isAiModelName(m)).toBe(true));
  it.each([
    '',
    '%2e%2e/%2e%2e/%2e%2e/internal/admin/delete-everything#',
    '../x',
    'models/gemini',
    '-gpt',
    '.hidden',
    'gpt 4',
    'gpt?key=1',
    'gpt#x',
    'gpt\n4',
    `g${'x'.repeat(100)}`,
  ])('refuses %j', (m) => expect(isAiModelName(m)).toBe(false));
  it('allows exactly 100 characters', () => {
    expect(isAiModelName(`g${'x'.repeat(99)}`)).toBe(true);
  });
});

describe('AI_MODELS', () => {
  it('absent or empty: any provider, any model of the allowed shape', () => {
    for (const raw of [undefined, '', '  ']) {
      const models = parseAiModels(raw);
      expect(models.restricted).toBe(false);
      expect(isAiModelAllowed(models, 'openai', 'gpt-5')).toBe(true);
      expect(isAiModelAllowed(models, 'google', '../x')).toBe(false);
    }
  });

  it('lists models per provider, * for any; a provider left out allows nothing', () => {
    const models = parseAiModels(' openai:gpt-4o-mini, gpt-4o ; anthropic:claude-haiku-4-5;google:* ');
    expect(models.restricted).toBe(true);
    expect(isAiModelAllowed(models, 'openai', 'gpt-4o-mini')).toBe(true);
    expect(isAiModelAllowed(models, 'openai', 'gpt-4o')).toBe(true);
    expect(isAiModelAllowed(models, 'openai', 'o3-pro')).toBe(false);
    expect(isAiModelAllowed(models, 'anthropic', 'claude-haiku-4-5')).toBe(true);
    expect(isAiModelAllowed(models, 'anthropic', 'claude-opus-4')).toBe(false);
    expect(isAiModelAllowed(models, 'google', 'gemini-2.5-pro')).toBe(true);
    expect(isAiModelAllowed(models, 'google', '%2e%2e/x#')).toBe(false);
    expect(isAiModelAllowed(models, 'mistral', 'mistral-small-latest')).toBe(false);
  });

  it.each([
    ['gpt-4o', /provider:model/],
    ['acme:model-1', /unknown provider "acme"/],
    ['openai:', /no model listed/],
    ['openai:gpt-4o;openai:gpt-4o-mini', /named twice/],
    ['openai:*,gpt-4o', /beside \*/],
    ['openai:../x', /not a valid model name/],
    [';;', /no provider listed/],
  ])('refuses %j', (raw, message) => {
    expect(() => parseAiModels(raw)).toThrow(AiModelsError);
    expect(() => parseAiModels(raw)).toThrow(message);
  });
});
