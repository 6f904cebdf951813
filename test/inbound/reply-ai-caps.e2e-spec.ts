/**
 * The operator's AI caps where a provider is called (CONTRACT §26): a workspace's config stored
 * before the caps (or written around the API) still cannot exceed `AI_DAILY_LIMIT_MAX`, use a model
 * `AI_MODELS` does not list, or send a model outside the allowed shape; every call caps its output
 * tokens. Real PostgreSQL and Redis, the running app's loops, the OpenAI fake recording requests.
 */
import type { NestExpressApplication } from '@nestjs/platform-express';
import { registry } from '../../src/common/metrics/metrics.js';
import { resetConfig } from '../../src/config/app-config.js';
import { bootApp } from '../helpers/app.js';
import { startFakeProvider, type FakeProvider } from '../helpers/fake-ai-providers.js';
import { replyPosting } from '../helpers/reply-posting.js';
import { waitFor } from '../helpers/wait.js';

describe('AI caps where the provider is called', () => {
  let app: NestExpressApplication;
  let fake: FakeProvider;

  const { workspace, reply, categoryOf } = replyPosting(() => app, 'caps');

  const decided = (id: number) =>
    waitFor(async () => {
      const r = await categoryOf(id);
      return r.category ? r : null;
    }, `reply ${id} categorised`);

  beforeAll(async () => {
    fake = await startFakeProvider('openai');
    fake.behave({ answer: '{"category":"wrong_person"}' });
    process.env.OPENAI_API_KEY = 'sk-caps-openai';
    process.env.OPENAI_BASE_URL = fake.baseUrl;
    process.env.AI_DAILY_LIMIT_MAX = '2';
    process.env.AI_MODELS = 'openai:gpt-4o-mini';
    resetConfig();
    app = await bootApp();
  }, 60_000);

  afterAll(async () => {
    await app.close();
    await fake.close();
    for (const k of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'AI_DAILY_LIMIT_MAX', 'AI_MODELS'])
      delete process.env[k];
    resetConfig();
  });

  const TEXT = 'Could you tell me more about pricing for ten seats?';

  it('a stored ai_daily_limit above AI_DAILY_LIMIT_MAX calls at most the cap; each call caps its output tokens', async () => {
    const { t, c } = await workspace({
      ai_provider: 'openai',
      ai_model: 'gpt-4o-mini',
      ai_daily_limit: 50000,
    });
    const sources: string[] = [];
    for (let i = 0; i < 3; i++) {
      const before = fake.requests.length;
      const { id } = await reply(t, c, TEXT);
      const got = await decided(id);
      sources.push(`${got.category_source}/${fake.requests.length - before}`);
    }
    expect(sources).toEqual(['ai/1', 'ai/1', 'rules/0']);
    for (const r of fake.requests) {
      expect((r.body as { max_completion_tokens?: number }).max_completion_tokens).toBe(1024);
    }
  });

  it('a stored model AI_MODELS does not list, or of another shape, calls nothing', async () => {
    const before = fake.requests.length;
    for (const ai_model of ['gpt-4o', '%2e%2e/%2e%2e/internal/admin/delete-everything#']) {
      const { t, c } = await workspace({ ai_provider: 'openai', ai_model });
      const { id } = await reply(t, c, TEXT);
      expect(await decided(id)).toMatchObject({ category_source: 'rules' });
    }
    expect(fake.requests.length).toBe(before);
    expect(await registry.metrics()).toMatch(
      /outreach_reply_categories_total\{source="rules",fallback="invalid_model"\} [2-9]/,
    );
  });
});
