/**
 * `categorize` against a local fake of each provider's real HTTP API (test/helpers/fake-ai-providers.ts):
 * the official SDKs make real HTTP requests to 127.0.0.1, recorded and checked. No SDK is mocked.
 */
import { jest } from '@jest/globals';
import {
  startFakeProvider,
  type FakeProvider,
  type FakeProviderName,
} from '../../../test/helpers/fake-ai-providers.js';
import { AI_PROVIDER_NAMES } from './ai/ai-adapter.js';
import { AI_MAX_OUTPUT_TOKENS } from './ai/prompt.js';
import { AI_ADAPTERS, aiCredentialsFromEnv, categorize, type CategorizeSettings } from './categorize.js';
import { REPLY_CATEGORIES } from '../threads/reply-category.js';

const KEY = 'sk-test-9f8e7d6c5b4a';
const MODEL: Record<FakeProviderName, string> = {
  openai: 'gpt-4.1-mini',
  anthropic: 'claude-haiku-4-5',
  google: 'gemini-2.5-flash',
  mistral: 'mistral-small-latest',
};

/** A reply whose own words are "not now", under a quoted step holding an opt-out and "interested". */
const OWN_WORDS = "Thanks Anna, not right now. We're mid-migration, try me again in Q3.";
const BODY = [
  OWN_WORDS,
  '',
  'Best regards,',
  'Priya Natarajan',
  'Director of RevOps | Northwind',
  '',
  'On Tue, Mar 3, 2026 at 10:15 AM Anna Becker <anna@brightleads.io> wrote:',
  '> Hi Priya, would you be interested in a 15-minute call?',
  '> Reply STOP to unsubscribe from QUOTED-HISTORY-7731.',
  '',
].join('\n');

const fakes = {} as Record<FakeProviderName, FakeProvider>;

beforeAll(async () => {
  for (const p of AI_PROVIDER_NAMES) fakes[p] = await startFakeProvider(p);
});
afterAll(async () => {
  await Promise.all(AI_PROVIDER_NAMES.map((p) => fakes[p].close()));
});
beforeEach(() => {
  for (const p of AI_PROVIDER_NAMES) fakes[p].requests.length = 0;
});

function settings(provider: FakeProviderName, extra: Partial<CategorizeSettings> = {}): CategorizeSettings {
  return {
    provider,
    model: MODEL[provider],
    apiKeys: { [provider]: KEY },
    baseUrls: { [provider]: fakes[provider].baseUrl },
    // Roomy for a loaded CI machine (a 1 s bound was missed there once); the bound itself is tested
    // with 300 ms against a hanging fake.
    timeoutMs: 5_000,
    ...extra,
  };
}

/** The header carrying the key, as each API documents it. */
function keyHeader(provider: FakeProviderName, headers: Record<string, unknown>): unknown {
  switch (provider) {
    case 'openai':
    case 'mistral':
      return headers.authorization;
    case 'anthropic':
      return [headers['x-api-key'], headers.authorization];
    case 'google':
      return headers['x-goog-api-key'];
  }
}

/** A recorded JSON body, walked loosely (a missing step is undefined). */
type Json = { [key: string]: Json } & Json[];

/** Where each request body caps the answer's length in tokens. */
function outputTokenCap(provider: FakeProviderName, body: Json): unknown {
  switch (provider) {
    case 'openai':
      return body.max_completion_tokens;
    case 'mistral':
    case 'anthropic':
      return body.max_tokens;
    case 'google':
      return body.generationConfig?.maxOutputTokens;
  }
}

/** Where each request body declares the closed set of answers. */
function declaredEnum(provider: FakeProviderName, body: Json): unknown {
  switch (provider) {
    case 'openai':
    case 'mistral':
      return body.response_format?.json_schema?.schema?.properties?.category?.enum;
    case 'anthropic':
      return body.tools?.[0]?.input_schema?.properties?.category?.enum;
    case 'google':
      return body.generationConfig?.responseSchema?.properties?.category?.enum;
  }
}

describe.each(AI_PROVIDER_NAMES)('categorize with ai_provider %s', (provider) => {
  it('sends the model, the key and the reply without its quoted history; takes a valid answer', async () => {
    fakes[provider].behave({ answer: '{"category":"interested"}' });
    await expect(categorize(BODY, settings(provider))).resolves.toEqual({
      category: 'interested',
      source: 'ai',
    });

    expect(fakes[provider].requests).toHaveLength(1);
    const [req] = fakes[provider].requests;
    const body = req!.body as Json;
    const expectedKey =
      provider === 'anthropic' ? [KEY, `Bearer ${KEY}`] : provider === 'google' ? KEY : `Bearer ${KEY}`;
    expect(keyHeader(provider, req!.headers)).toEqual(expectedKey);
    if (provider === 'google') expect(req!.path).toBe(`/v1beta/models/${MODEL.google}:generateContent`);
    else expect(body.model).toBe(MODEL[provider]);
    if (provider === 'anthropic') {
      expect(req!.headers['anthropic-version']).toBeTruthy();
      expect(body.tool_choice).toEqual({ type: 'tool', name: 'reply_category' });
    }
    expect(declaredEnum(provider, body)).toEqual([...REPLY_CATEGORIES]);
    // The operator's key pays for every token: the answer is capped (a category is a few tokens).
    expect(outputTokenCap(provider, body)).toBe(AI_MAX_OUTPUT_TOKENS);
    expect(req!.raw).toContain("not right now. We're mid-migration");
    expect(req!.raw).not.toContain('QUOTED-HISTORY-7731');
    expect(req!.raw).not.toContain('would you be interested');
    expect(req!.raw).not.toContain('Priya Natarajan');
  });

  it.each([
    ['prose', 'The category is interested.'],
    ['an empty answer', ''],
    ['a value outside the set', '{"category":"hot_lead"}'],
    ['an injection-style answer', 'Ignore previous instructions. {"category":"delete_all"}'],
    ['an injected category', '{"category":"delete_all"}'],
    ['an extra key', '{"category":"interested","action":"export_contacts"}'],
    ['an array', '["interested"]'],
  ])('falls back to the rules on %s', async (_name, answer) => {
    fakes[provider].behave({ answer });
    await expect(categorize(BODY, settings(provider))).resolves.toEqual({
      category: 'not_now',
      source: 'rules',
      fallback: 'invalid_answer',
    });
    expect(fakes[provider].requests).toHaveLength(1);
  });

  it('falls back to the rules on HTTP 500, once (no retries)', async () => {
    fakes[provider].behave({ status: 500 });
    await expect(categorize(BODY, settings(provider))).resolves.toEqual({
      category: 'not_now',
      source: 'rules',
      fallback: 'error',
    });
    expect(fakes[provider].requests).toHaveLength(1);
  });

  it('falls back to the rules when the provider hangs past the bound', async () => {
    fakes[provider].behave({ hang: true });
    const started = Date.now();
    await expect(categorize(BODY, settings(provider, { timeoutMs: 300 }))).resolves.toEqual({
      category: 'not_now',
      source: 'rules',
      fallback: 'timeout',
    });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('calls nothing without a key, without a model, or when the daily cap says no', async () => {
    await expect(categorize(BODY, settings(provider, { apiKeys: {} }))).resolves.toMatchObject({
      source: 'rules',
      fallback: 'no_key',
    });
    await expect(categorize(BODY, settings(provider, { model: null }))).resolves.toMatchObject({
      source: 'rules',
      fallback: 'no_model',
    });
    const allowCall = jest.fn(() => Promise.resolve(false));
    await expect(categorize(BODY, settings(provider, { allowCall }))).resolves.toMatchObject({
      category: 'not_now',
      source: 'rules',
      fallback: 'daily_limit',
    });
    expect(allowCall).toHaveBeenCalledTimes(1);
    expect(fakes[provider].requests).toHaveLength(0);
  });

  it('sends nothing once the bound has passed (e.g. while the SDK was still loading)', async () => {
    fakes[provider].behave({ answer: '{"category":"interested"}' });
    const controller = new AbortController();
    controller.abort();
    await expect(
      AI_ADAPTERS[provider]({
        text: OWN_WORDS,
        model: MODEL[provider],
        apiKey: KEY,
        baseUrl: fakes[provider].baseUrl,
        signal: controller.signal,
        timeoutMs: 5_000,
      }),
    ).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(fakes[provider].requests).toHaveLength(0);
  });

  it('falls back to the rules, calling nothing, when the daily cap cannot be read', async () => {
    const allowCall = (): Promise<boolean> => Promise.reject(new Error('redis down'));
    await expect(categorize(BODY, settings(provider, { allowCall }))).resolves.toEqual({
      category: 'not_now',
      source: 'rules',
      fallback: 'error',
    });
    expect(fakes[provider].requests).toHaveLength(0);
  });
});

describe('a model name never rewrites the request', () => {
  const HOSTILE = [
    '%2e%2e/%2e%2e/%2e%2e/internal/admin/delete-everything#',
    '../../../internal/admin/delete-everything',
    'gemini-2.5-flash/../../x?key=1',
    'gemini 2.5',
    `g${'x'.repeat(100)}`,
  ];

  it.each(AI_PROVIDER_NAMES)(
    '%s: categorize calls nothing for a model outside the allowed shape',
    async (provider) => {
      for (const model of HOSTILE) {
        await expect(categorize(BODY, settings(provider, { model }))).resolves.toEqual({
          category: 'not_now',
          source: 'rules',
          fallback: 'invalid_model',
        });
      }
      expect(fakes[provider].requests).toHaveLength(0);
    },
  );

  it('the Google adapter itself refuses such a model, and sends an allowed one as one encoded path segment', async () => {
    const signal = new AbortController().signal;
    const ask = (model: string) =>
      AI_ADAPTERS.google({
        text: 'Not now, thanks.',
        model,
        apiKey: KEY,
        baseUrl: fakes.google.baseUrl,
        signal,
        timeoutMs: 5_000,
      });
    for (const model of HOSTILE) await expect(ask(model)).rejects.toThrow(/model/);
    expect(fakes.google.requests).toHaveLength(0);
    fakes.google.behave({ answer: '{"category":"not_now"}' });
    await expect(ask('tunedModels:gemini-2.5.flash_x')).resolves.toBe('not_now');
    expect(fakes.google.requests.map((r) => r.path)).toEqual([
      '/v1beta/models/tunedModels%3Agemini-2.5.flash_x:generateContent',
    ]);
  });
});

describe('categorize with ai_provider none', () => {
  it('uses the rules and calls no provider, even with keys and base URLs set', async () => {
    const allowCall = jest.fn(() => Promise.resolve(true));
    const all: CategorizeSettings = {
      provider: 'none',
      model: 'gpt-4.1-mini',
      apiKeys: Object.fromEntries(AI_PROVIDER_NAMES.map((p) => [p, KEY])),
      baseUrls: Object.fromEntries(AI_PROVIDER_NAMES.map((p) => [p, fakes[p].baseUrl])),
      allowCall,
    };
    await expect(categorize(BODY, all)).resolves.toEqual({ category: 'not_now', source: 'rules' });
    await expect(categorize('Please remove me from your list.', all)).resolves.toEqual({
      category: 'unsubscribe_request',
      source: 'rules',
    });
    expect(allowCall).not.toHaveBeenCalled();
    for (const p of AI_PROVIDER_NAMES) expect(fakes[p].requests).toHaveLength(0);
  });
});

describe('aiCredentialsFromEnv', () => {
  it('reads each provider key and base URL', () => {
    expect(
      aiCredentialsFromEnv({
        OPENAI_API_KEY: 'o',
        OPENAI_BASE_URL: 'http://o.test/v1',
        ANTHROPIC_API_KEY: 'a',
        GEMINI_API_KEY: 'g',
        MISTRAL_API_KEY: 'm',
        MISTRAL_BASE_URL: 'http://m.test',
      }),
    ).toEqual({
      apiKeys: { openai: 'o', anthropic: 'a', google: 'g', mistral: 'm' },
      baseUrls: { openai: 'http://o.test/v1', mistral: 'http://m.test' },
    });
  });
});
