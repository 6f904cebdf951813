/**
 * The operator's AI caps where a provider is called (CONTRACT §26): a workspace's config stored
 * before the caps (or written around the API) still cannot exceed `AI_DAILY_LIMIT_MAX`, use a model
 * `AI_MODELS` does not list, or send a model outside the allowed shape; every call caps its output
 * tokens. Real PostgreSQL and Redis, the running app's loops, the OpenAI fake recording requests.
 */
import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { registry } from '../../src/common/metrics/metrics.js';
import { resetConfig } from '../../src/config/app-config.js';
import { bootApp, createTenant, type TestTenant } from '../helpers/app.js';
import { startFakeProvider, type FakeProvider } from '../helpers/fake-ai-providers.js';
import { seedCampaign, seedContact, type SeededCampaign } from '../helpers/seed.js';
import { waitFor } from '../helpers/wait.js';

const FAR = new Date(Date.now() + 30 * 86_400_000);

describe('AI caps where the provider is called', () => {
  let app: NestExpressApplication;
  let db: DataSource;
  let fake: FakeProvider;
  let counter = 0;
  const q = (sql: string, params?: unknown[]): Promise<unknown> => db.query(sql, params);

  async function workspace(config: Record<string, unknown>): Promise<{ t: TestTenant; c: SeededCampaign }> {
    const t = await createTenant(app);
    await q('UPDATE workspaces SET config = config || $2::jsonb WHERE id = $1', [
      t.workspaceId,
      JSON.stringify(config),
    ]);
    const c = await seedCampaign(q, { workspaceId: t.workspaceId, smtpPort: 1, domain: 'caps.test' });
    return { t, c };
  }

  /** A contact with step 1 sent, and a reply to it posted; the recorded reply's id. */
  async function reply(
    t: TestTenant,
    c: SeededCampaign,
    body: string,
  ): Promise<{ id: number; contactId: number }> {
    counter += 1;
    const email = `caps${counter}@example.com`;
    const contactId = await seedContact(q, t.workspaceId, email);
    const [enr] = (await q(
      `INSERT INTO enrollments (workspace_id, campaign_id, contact_id, status, current_step, next_step_at)
       VALUES ($1, $2, $3, 'active', 1, $4) RETURNING id`,
      [t.workspaceId, c.campaignId, contactId, FAR],
    )) as Array<{ id: number }>;
    const [thread] = (await q(
      `INSERT INTO threads (workspace_id, inbox_id, contact_id, enrollment_id, campaign_id, subject, message_count, last_message_at)
       VALUES ($1, $2, $3, $4, $5, 'Hello', 1, now()) RETURNING id`,
      [t.workspaceId, c.inboxIds[0], contactId, enr.id, c.campaignId],
    )) as Array<{ id: number }>;
    const messageId = `<caps-${counter}-${Date.now()}@caps.test>`;
    await q(
      `INSERT INTO messages (workspace_id, thread_id, enrollment_id, direction, kind, from_address, to_address,
         subject, body, message_id, status, sent_at, step_position, variant)
       VALUES ($1, $2, $3, 'outbound', 'email', 'sender1@caps.test', $4, 'Hello', 'Hi', $5, 'sent', now(), 1, 'A')`,
      [t.workspaceId, thread.id, enr.id, email, messageId],
    );
    const res = await request(app.getHttpServer())
      .post(`/api/v1/inbound/${c.inboxIds[0]}`)
      .set('Authorization', `Bearer ${c.inboundSecrets[0]}`)
      .set('Content-Type', 'message/rfc822')
      .send(
        [
          `From: ${email}`,
          'To: sender1@caps.test',
          'Subject: Re: Hello',
          `Message-ID: <r-${counter}-${Math.random().toString(36).slice(2)}@example.com>`,
          `In-Reply-To: ${messageId}`,
          '',
          body,
          '',
        ].join('\r\n'),
      );
    expect(res.status).toBe(202);
    return { id: Number(res.body.data.message_id), contactId };
  }

  const categoryOf = async (id: number) =>
    (
      (await q('SELECT category, category_source FROM messages WHERE id = $1', [id])) as Array<{
        category: string | null;
        category_source: string | null;
      }>
    )[0];

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
    db = app.get(DataSource);
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
