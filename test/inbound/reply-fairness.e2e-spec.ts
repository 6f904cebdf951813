/**
 * Fair, bounded categorisation (CONTRACT §26): one workspace's backlog behind a provider that never
 * answers does not delay another workspace's replies. Real PostgreSQL and Redis, the running app's two
 * loops (rules, then AI round-robin across workspaces), replies posted to `POST /inbound/{inbox_id}`,
 * the providers' local fakes (test/helpers/fake-ai-providers.ts).
 *
 * Before the two steps, the queue was one FIFO (ORDER BY id, 4 calls of up to 10 s at a time): with
 * 24 replies of a hanging workspace queued, another workspace's "please remove me" waited 61 s.
 */
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DataSource } from 'typeorm';
import { resetConfig } from '../../src/config/app-config.js';
import { api, bootApp } from '../helpers/app.js';
import { startFakeProvider, type FakeProvider } from '../helpers/fake-ai-providers.js';
import { replyPosting } from '../helpers/reply-posting.js';
import { waitFor } from '../helpers/wait.js';

const BOUND_MS = 2_000;

describe('categorisation is fair across workspaces', () => {
  let app: NestExpressApplication;
  let db: DataSource;
  let hanging: FakeProvider;
  let answering: FakeProvider;
  const q = (sql: string, params?: unknown[]): Promise<unknown> => db.query(sql, params);

  const { workspace, reply, categoryOf } = replyPosting(() => app, 'fair');

  /** Milliseconds from now until the reply is categorised (polled every 50 ms). */
  async function timeToDecide(id: number): Promise<{ ms: number; category: string; source: string }> {
    const started = Date.now();
    const row = await waitFor(
      async () => {
        const r = await categoryOf(id);
        return r.category ? r : null;
      },
      `reply ${id} categorised`,
      60_000,
    );
    return { ms: Date.now() - started, category: row.category!, source: row.category_source! };
  }

  beforeAll(async () => {
    hanging = await startFakeProvider('openai');
    answering = await startFakeProvider('anthropic');
    hanging.behave({ hang: true });
    answering.behave({ answer: '{"category":"interested"}' });
    process.env.OPENAI_API_KEY = 'sk-fair-openai';
    process.env.OPENAI_BASE_URL = hanging.baseUrl;
    process.env.ANTHROPIC_API_KEY = 'sk-fair-anthropic';
    process.env.ANTHROPIC_BASE_URL = answering.baseUrl;
    process.env.AI_TIMEOUT_MS = String(BOUND_MS);
    resetConfig();
    app = await bootApp();
    db = app.get(DataSource);
  }, 60_000);

  afterAll(async () => {
    await app.close();
    await hanging.close();
    await answering.close();
    for (const k of [
      'OPENAI_API_KEY',
      'OPENAI_BASE_URL',
      'ANTHROPIC_API_KEY',
      'ANTHROPIC_BASE_URL',
      'AI_TIMEOUT_MS',
    ])
      delete process.env[k];
    resetConfig();
  });

  it("another workspace's opt-out applies at once and its AI reply within one bound, while one workspace's provider hangs with 24 replies queued", async () => {
    const slow = await workspace({ ai_provider: 'openai', ai_model: 'gpt-4o-mini' });
    const queued: number[] = [];
    for (let i = 0; i < 24; i++) {
      queued.push((await reply(slow.t, slow.c, 'Could you tell me more about pricing for ten seats?')).id);
    }
    // The hanging provider holds calls now.
    await waitFor(async () => hanging.requests.length >= 1, 'the hanging provider is called');

    const other = await workspace({ ai_provider: 'anthropic', ai_model: 'claude-haiku-4-5' });
    const optOut = await reply(other.t, other.c, 'Please remove me from your list.');
    const opt = await timeToDecide(optOut.id);
    console.log(
      `opt-out of another workspace applied after ${opt.ms} ms (24 replies queued behind a hanging provider)`,
    );
    expect(opt).toMatchObject({ category: 'unsubscribe_request', source: 'rules' });
    expect(opt.ms).toBeLessThan(1_500);
    const contact = await api(app, other.t.token).get(`/contacts/${optOut.contactId}`);
    expect(contact.body.data).toMatchObject({ sendable: false, suppression: { reason: 'unsubscribed' } });
    // The rules' opt-out asked no provider.
    expect(answering.requests).toHaveLength(0);

    const asked = await reply(other.t, other.c, 'Could you tell me more about pricing for ten seats?');
    const ai = await timeToDecide(asked.id);
    console.log(`AI reply of another workspace decided after ${ai.ms} ms (bound ${BOUND_MS} ms)`);
    expect(ai).toMatchObject({ category: 'interested', source: 'ai' });
    // At most one bound waiting for a slot held by the hanging provider, then its own quick answer.
    expect(ai.ms).toBeLessThan(BOUND_MS + 2_000);
    expect(answering.requests).toHaveLength(1);

    // The hanging workspace's replies are still decided, by the rules once each call times out.
    const stillWaiting = (await q(
      'SELECT count(*)::int AS n FROM messages WHERE id = ANY($1::bigint[]) AND category IS NULL',
      [queued],
    )) as Array<{ n: number }>;
    expect(stillWaiting[0].n).toBeGreaterThan(0);
    const first = await categoryOf(queued[0]);
    if (first.category) expect(first).toEqual({ category: 'interested', category_source: 'rules' });
  }, 120_000);
});
