/**
 * The operator's caps on a workspace's AI settings (CONTRACT §26), through the provisioning API:
 * `ai_daily_limit` at most `AI_DAILY_LIMIT_MAX`, `ai_model` of the allowed shape, and with `AI_MODELS`
 * set only a listed provider and model; each breach is 422 naming `config.<key>`, and nothing is stored.
 */
import { api, createTenant, type TestTenant, useApp, app } from '../helpers/app.js';

const LIST = '/provisioning/workspaces';

describe('AI settings within the operator caps', () => {
  useApp({ env: { AI_DAILY_LIMIT_MAX: '5000', AI_MODELS: 'openai:gpt-4o-mini,gpt-4o;google:*' } });
  let t: TestTenant;

  beforeAll(async () => {
    t = await createTenant(app, { maxWorkspaces: 100 });
  });

  const seed = (config: Record<string, unknown>) =>
    api(app, t.provisioningToken).post(`${LIST}/${t.workspaceId}/seed`).send({ config });
  const create = (config: Record<string, unknown>) =>
    api(app, t.provisioningToken).post(LIST).send({ name: 'AI', config });
  const shown = async () =>
    (await api(app, t.provisioningToken).get(`${LIST}/${t.workspaceId}`)).body.data.config;

  it('refuses an ai_daily_limit above AI_DAILY_LIMIT_MAX, accepts it at the cap', async () => {
    for (const send of [seed, create]) {
      const res = await send({ ai_daily_limit: 5001 });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ type: 'validation_failed', field: 'config.ai_daily_limit' });
      expect(res.body.error.message).toContain('5000');
    }
    expect((await shown()).ai_daily_limit).toBe(1000);
    const ok = await seed({ ai_daily_limit: 5000 });
    expect(ok.status).toBe(200);
    expect(ok.body.data.workspace.config.ai_daily_limit).toBe(5000);
  });

  it('refuses a model name outside the allowed shape, whatever the provider', async () => {
    for (const ai_model of [
      '%2e%2e/%2e%2e/%2e%2e/internal/admin/delete-everything#',
      '../admin',
      'gpt 4o',
      '-gpt',
      'gpt-4o?x=1',
    ]) {
      for (const send of [seed, create]) {
        const res = await send({ ai_provider: 'google', ai_model });
        expect([ai_model, res.status]).toEqual([ai_model, 422]);
        expect(res.body.error).toMatchObject({ type: 'validation_failed', field: 'config.ai_model' });
      }
    }
    expect(await shown()).toMatchObject({ ai_provider: 'none', ai_model: null });
  });

  it('with AI_MODELS: only the listed models of the listed providers (* for any), else 422', async () => {
    const refused: Array<[Record<string, unknown>, string]> = [
      [{ ai_provider: 'openai', ai_model: 'o3-pro' }, 'config.ai_model'],
      [{ ai_provider: 'anthropic', ai_model: 'claude-haiku-4-5' }, 'config.ai_provider'],
      [{ ai_provider: 'mistral' }, 'config.ai_provider'],
    ];
    for (const [config, field] of refused) {
      for (const send of [seed, create]) {
        const res = await send(config);
        expect([config, res.status]).toEqual([config, 422]);
        expect(res.body.error).toMatchObject({ type: 'validation_failed', field });
      }
    }
    expect(await shown()).toMatchObject({ ai_provider: 'none', ai_model: null });

    const openai = await seed({ ai_provider: 'openai', ai_model: 'gpt-4o-mini' });
    expect(openai.status).toBe(200);
    expect(openai.body.data.workspace.config).toMatchObject({
      ai_provider: 'openai',
      ai_model: 'gpt-4o-mini',
    });
    // Changing the provider alone keeps the model, which must then be allowed for the new one.
    const google = await seed({ ai_provider: 'google' });
    expect(google.status).toBe(200);
    const back = await seed({ ai_provider: 'openai', ai_model: 'gemini-2.5-flash' });
    expect(back.status).toBe(422);
    expect(back.body.error.field).toBe('config.ai_model');
    const anyGoogle = await create({ ai_provider: 'google', ai_model: 'gemini-2.5-pro' });
    expect(anyGoogle.status).toBe(201);
    // A config that touches no AI key is never refused for one stored before the caps.
    const other = await seed({ domain_daily_send_limit: 42 });
    expect(other.status).toBe(200);
  });
});
