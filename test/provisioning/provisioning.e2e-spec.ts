/**
 * Agency provisioning (issue 7, docs/platform.md): plan cap under concurrency, config validation, uniform
 * 404s, re-runnable seed, minted keys and their independence from the provisioning key.
 */
import request from 'supertest';
import { PROVISIONING_SCOPES, WORKSPACE_SCOPES } from '../../src/common/auth/scopes.js';
import { ApiKeysService } from '../../src/modules/api-keys/api-keys.service.js';
import { OrganizationsService } from '../../src/modules/organizations/organizations.service.js';
import { api, createTenant, type TestTenant, useApp, app, db } from '../helpers/app.js';

const LIST = '/provisioning/workspaces';
const DEFAULT_CONFIG = {
  domain_daily_send_limit: 500,
  unsubscribe_footer_enabled: true,
  message_body_retention_days: 365,
  ai_provider: 'none',
  ai_model: null,
  ai_daily_limit: 1000,
  bounce_rate_pause_percent: 5,
  out_of_office_hold_days: 3,
};

describe('provisioning', () => {
  useApp();
  let t: TestTenant;
  let orgCounter = 0;

  beforeAll(async () => {
    await app.listen(0, '127.0.0.1');
    t = await createTenant(app, { maxWorkspaces: 1000 });
  });

  /** An organization with no workspace yet and a provisioning key with both scopes. */
  const emptyOrg = async (
    maxWorkspaces: number,
  ): Promise<{ orgId: string; token: string; keyId: number }> => {
    orgCounter += 1;
    const org = await app.get(OrganizationsService).create(`Agency ${orgCounter}`, { maxWorkspaces });
    const { key, token } = await app.get(ApiKeysService).create({
      tier: 'provisioning',
      organizationId: org.id,
      scopes: [...PROVISIONING_SCOPES],
    });
    return { orgId: org.id, token, keyId: key.id };
  };

  const count = async (orgId: string): Promise<number> => {
    const [{ n }] = (await db.query('SELECT count(*)::int AS n FROM workspaces WHERE organization_id = $1', [
      orgId,
    ])) as Array<{ n: number }>;
    return n;
  };

  const create = (token: string, body: unknown): request.Test =>
    api(app, token)
      .post(LIST)
      .send(body as object);

  it('creates a workspace in the key’s organization and mints a full-scope workspace key', async () => {
    const org = await emptyOrg(5);
    const res = await create(org.token, { name: '  Client A  ', config: { domain_daily_send_limit: 50 } });
    expect(res.status).toBe(201);
    const { workspace, api_key } = res.body.data;
    expect(Object.keys(res.body.data).sort()).toEqual(['api_key', 'workspace']);
    expect(workspace).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Client A',
      config: { ...DEFAULT_CONFIG, domain_daily_send_limit: 50 },
      organization_id: org.orgId,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(Object.keys(api_key).sort()).toEqual(['id', 'name', 'prefix', 'scopes', 'token']);
    expect(api_key.token).toMatch(/^svc_sk_[0-9A-Za-z]{38}$/);
    expect(api_key.prefix).toBe(api_key.token.slice(0, 12));
    expect([...api_key.scopes].sort()).toEqual([...WORKSPACE_SCOPES].sort());
    const shown = await api(app, org.token).get(`${LIST}/${workspace.id}`);
    expect(shown.status).toBe(200);
    expect(shown.body).toEqual({ data: workspace });
    const listed = await api(app, org.token).get(LIST);
    expect(listed.body.data).toEqual([workspace]);
    // Provisioning creates nothing else in the workspace.
    for (const table of ['contacts', 'inboxes', 'sequences', 'campaigns', 'suppressions']) {
      const [{ n }] = (await db.query(`SELECT count(*)::int AS n FROM ${table} WHERE workspace_id = $1`, [
        workspace.id,
      ])) as Array<{ n: number }>;
      expect({ table, n }).toEqual({ table, n: 0 });
    }
  });

  it('runs 20 concurrent creates with one Idempotency-Key once', async () => {
    const org = await emptyOrg(50);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        api(app, org.token).post(LIST).set('Idempotency-Key', 'one-create').send({ name: 'Once' }),
      ),
    );
    expect(await count(org.orgId)).toBe(1);
    const created = answers.filter((r) => r.status === 201);
    expect(created.length + answers.filter((r) => r.status === 409).length).toBe(20);
    const ids = new Set(created.map((r) => r.body.data.workspace.id));
    const tokens = new Set(created.map((r) => r.body.data.api_key.token));
    expect([ids.size, tokens.size]).toEqual([1, 1]);
    const [{ n }] = (await db.query(
      `SELECT count(*)::int AS n FROM api_keys WHERE workspace_id = $1 AND created_by_key_id = $2`,
      [[...ids][0], org.keyId],
    )) as Array<{ n: number }>;
    expect(n).toBe(1);
  });

  it('lets exactly 2 of 10 concurrent creates through a cap of 2', async () => {
    const org = await emptyOrg(2);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        api(app, org.token)
          .post(LIST)
          .set('Idempotency-Key', `cap-${i}`)
          .send({ name: `Capped ${i}` }),
      ),
    );
    expect(await count(org.orgId)).toBe(2);
    expect(answers.filter((r) => r.status === 201)).toHaveLength(2);
    const refused = answers.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(8);
    for (const r of refused) {
      expect(r.status).toBe(403);
      expect(r.body.error.type).toBe('plan_limit_exceeded');
    }
    // Raising the plan lets the next one in; the CLI-side rule is the same service.
    await app.get(OrganizationsService).setPlan(org.orgId, { maxWorkspaces: 3 });
    expect((await create(org.token, { name: 'Third' })).status).toBe(201);
    expect((await create(org.token, { name: 'Fourth' })).status).toBe(403);
  });

  const expect422 = async (path: string, body: unknown, field: string): Promise<void> => {
    const res = await api(app, t.provisioningToken)
      .post(path)
      .send(body as object);
    expect({ status: res.status, type: res.body.error?.type, field: res.body.error?.field }).toEqual({
      status: 422,
      type: 'validation_failed',
      field,
    });
  };

  it('rejects unknown config keys, out-of-bound values and wrong types, naming config.<key>', async () => {
    const seed = `${LIST}/${t.workspaceId}/seed`;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ colour: 'blue' }, 'config.colour'],
      [{ message_body_retention_days: 0 }, 'config.message_body_retention_days'],
      [{ message_body_retention_days: 3651 }, 'config.message_body_retention_days'],
      [{ message_body_retention_days: -5 }, 'config.message_body_retention_days'],
      [{ message_body_retention_days: 30.5 }, 'config.message_body_retention_days'],
      [{ message_body_retention_days: '30' }, 'config.message_body_retention_days'],
      [{ message_body_retention_days: null }, 'config.message_body_retention_days'],
      [{ domain_daily_send_limit: 0 }, 'config.domain_daily_send_limit'],
      [{ domain_daily_send_limit: 100001 }, 'config.domain_daily_send_limit'],
      [{ domain_daily_send_limit: '500' }, 'config.domain_daily_send_limit'],
      [{ domain_daily_send_limit: true }, 'config.domain_daily_send_limit'],
      [{ unsubscribe_footer_enabled: 1 }, 'config.unsubscribe_footer_enabled'],
      [{ unsubscribe_footer_enabled: 'true' }, 'config.unsubscribe_footer_enabled'],
      [{ unsubscribe_footer_enabled: null }, 'config.unsubscribe_footer_enabled'],
      [{ ai_provider: 'gpt' }, 'config.ai_provider'],
      [{ ai_provider: 'OPENAI' }, 'config.ai_provider'],
      [{ ai_provider: null }, 'config.ai_provider'],
      [{ ai_model: '' }, 'config.ai_model'],
      [{ ai_model: 'm'.repeat(101) }, 'config.ai_model'],
      [{ ai_model: 5 }, 'config.ai_model'],
      [{ ai_daily_limit: -1 }, 'config.ai_daily_limit'],
      [{ ai_daily_limit: 1000001 }, 'config.ai_daily_limit'],
      [{ ai_daily_limit: 10001 }, 'config.ai_daily_limit'], // above AI_DAILY_LIMIT_MAX's default
      [{ ai_model: 'gpt/../admin' }, 'config.ai_model'],
      [{ ai_daily_limit: 2.5 }, 'config.ai_daily_limit'],
      [{ ai_daily_limit: '1000' }, 'config.ai_daily_limit'],
      [{ ai_daily_limit: null }, 'config.ai_daily_limit'],
      [{ bounce_rate_pause_percent: -1 }, 'config.bounce_rate_pause_percent'],
      [{ bounce_rate_pause_percent: 100.5 }, 'config.bounce_rate_pause_percent'],
      [{ bounce_rate_pause_percent: '5' }, 'config.bounce_rate_pause_percent'],
      [{ bounce_rate_pause_percent: null }, 'config.bounce_rate_pause_percent'],
      [{ bounce_rate_pause_percent: true }, 'config.bounce_rate_pause_percent'],
    ];
    const before = await count(t.organizationId);
    for (const [config, field] of cases) {
      await expect422(LIST, { name: 'Bad config', config }, field);
      await expect422(seed, { config }, field);
    }
    await expect422(LIST, { name: 'Bad config', config: 'x' }, 'config');
    await expect422(LIST, { name: 'Bad config', config: [1] }, 'config');
    await expect422(seed, { config: null }, 'config');
    await expect422(seed, {}, 'config');
    await expect422(LIST, { name: 7 }, 'name');
    await expect422(LIST, { name: 'n'.repeat(201) }, 'name');
    expect(await count(t.organizationId)).toBe(before);
    const shown = await api(app, t.provisioningToken).get(`${LIST}/${t.workspaceId}`);
    expect(shown.body.data.config).toEqual(DEFAULT_CONFIG);
  });

  it('accepts the bounds 1 and 3650 and every valid value', async () => {
    const low = await create(t.provisioningToken, {
      name: 'Low',
      config: { message_body_retention_days: 1 },
    });
    expect(low.status).toBe(201);
    expect(low.body.data.workspace.config.message_body_retention_days).toBe(1);
    const high = await create(t.provisioningToken, {
      name: 'High',
      config: {
        message_body_retention_days: 3650,
        domain_daily_send_limit: 100000,
        unsubscribe_footer_enabled: false,
        ai_provider: 'mistral',
        ai_model: 'm'.repeat(100),
        ai_daily_limit: 10000, // AI_DAILY_LIMIT_MAX's default
        bounce_rate_pause_percent: 2.5,
      },
    });
    expect(high.status).toBe(201);
    expect(high.body.data.workspace.config).toEqual({
      message_body_retention_days: 3650,
      domain_daily_send_limit: 100000,
      unsubscribe_footer_enabled: false,
      ai_provider: 'mistral',
      ai_model: 'm'.repeat(100),
      ai_daily_limit: 10000,
      bounce_rate_pause_percent: 2.5,
      out_of_office_hold_days: 3,
    });
    const none = await api(app, t.provisioningToken)
      .post(`${LIST}/${high.body.data.workspace.id}/seed`)
      .send({ config: { ai_daily_limit: 0 } });
    expect(none.status).toBe(200);
    expect(none.body.data.workspace.config.ai_daily_limit).toBe(0);
    for (const percent of [0, 100]) {
      const res = await api(app, t.provisioningToken)
        .post(`${LIST}/${high.body.data.workspace.id}/seed`)
        .send({ config: { bounce_rate_pause_percent: percent } });
      expect(res.status).toBe(200);
      expect(res.body.data.workspace.config.bounce_rate_pause_percent).toBe(percent);
    }
    for (const provider of ['openai', 'anthropic', 'google', 'mistral', 'none']) {
      const res = await api(app, t.provisioningToken)
        .post(`${LIST}/${low.body.data.workspace.id}/seed`)
        .send({ config: { ai_provider: provider, domain_daily_send_limit: 1 } });
      expect(res.status).toBe(200);
      expect(res.body.data.workspace.config.ai_provider).toBe(provider);
    }
  });

  it('rejects any tenant field in the body with 422 naming it', async () => {
    const seed = `${LIST}/${t.workspaceId}/seed`;
    for (const field of ['organization_id', 'org_id', 'workspace_id']) {
      await expect422(LIST, { name: 'Sneaky', [field]: t.organizationId }, field);
      await expect422(seed, { config: {}, [field]: t.workspaceId }, field);
      await expect422(seed, { config: { [field]: t.workspaceId } }, `config.${field}`);
    }
  });

  it('answers byte-identical 404s for a foreign, a random and a malformed workspace id', async () => {
    const foreign = await createTenant(app);
    const raw = async (method: 'get' | 'post', id: string): Promise<string> => {
      const req =
        method === 'get'
          ? api(app, t.provisioningToken).get(`${LIST}/${id}`)
          : api(app, t.provisioningToken)
              .post(`${LIST}/${id}/seed`)
              .send({ config: { ai_model: 'probe' } });
      const res = await req.buffer(true).parse((r, done) => {
        let text = '';
        r.setEncoding('utf8');
        r.on('data', (c: string) => (text += c));
        r.on('end', () => done(null, text));
      });
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      return res.body as string;
    };
    for (const method of ['get', 'post'] as const) {
      const bodies = [
        await raw(method, foreign.workspaceId),
        await raw(method, '6f1c1f4e-8f0a-4c1b-9d55-3f2d7e1a9b00'),
        await raw(method, 'not-a-uuid'),
        await raw(method, `${foreign.workspaceId}x`),
        await raw(method, foreign.workspaceId.toUpperCase()),
      ];
      expect(new Set(bodies).size).toBe(1);
      expect(JSON.parse(bodies[0])).toEqual({ error: { type: 'not_found', message: expect.any(String) } });
    }
    // The foreign workspace was not touched.
    const untouched = await api(app, foreign.provisioningToken).get(`${LIST}/${foreign.workspaceId}`);
    expect(untouched.body.data.config.ai_model).toBeNull();
  });

  it('merges seed config, and re-running it gives the same result', async () => {
    const made = await create(t.provisioningToken, {
      name: 'Seeded',
      config: { ai_provider: 'openai', ai_model: 'gpt-x' },
    });
    const id: string = made.body.data.workspace.id;
    const seed = (config: Record<string, unknown>): request.Test =>
      api(app, t.provisioningToken).post(`${LIST}/${id}/seed`).send({ config });
    const first = await seed({ message_body_retention_days: 30, unsubscribe_footer_enabled: false });
    expect(first.status).toBe(200);
    expect(Object.keys(first.body.data)).toEqual(['workspace']);
    expect(first.body.data.workspace.config).toEqual({
      domain_daily_send_limit: 500,
      unsubscribe_footer_enabled: false,
      message_body_retention_days: 30,
      ai_provider: 'openai',
      ai_model: 'gpt-x',
      ai_daily_limit: 1000,
      bounce_rate_pause_percent: 5,
      out_of_office_hold_days: 3,
    });
    const second = await seed({ message_body_retention_days: 30, unsubscribe_footer_enabled: false });
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    const cleared = await seed({ ai_model: null });
    expect(cleared.body.data.workspace.config).toEqual({
      ...first.body.data.workspace.config,
      ai_model: null,
    });
    const empty = await seed({});
    expect(empty.body).toEqual(cleared.body);
    const [row] = (await db.query('SELECT config FROM workspaces WHERE id = $1', [id])) as Array<{
      config: Record<string, unknown>;
    }>;
    expect(row.config).toEqual(cleared.body.data.workspace.config);
  });

  it('the minted key is a workspace key: works on /me and workspace routes, 403 on provisioning routes', async () => {
    const org = await emptyOrg(5);
    const made = await create(org.token, { name: 'Minted' });
    const minted: string = made.body.data.api_key.token;
    const wsId: string = made.body.data.workspace.id;
    const me = await api(app, minted).get('/me');
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({ tier: 'workspace', workspace_id: wsId, organization_id: org.orgId });
    expect([...me.body.data.scopes].sort()).toEqual([...WORKSPACE_SCOPES].sort());
    const contacts = await api(app, minted).get('/contacts');
    expect(contacts.status).toBe(200);
    expect(contacts.body.data).toEqual([]);
    for (const res of [
      await api(app, minted).get(LIST),
      await api(app, minted).get(`${LIST}/${wsId}`),
      await create(minted, { name: 'Nope' }),
      await api(app, minted).post(`${LIST}/${wsId}/seed`).send({ config: {} }),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.error.type).toBe('forbidden');
    }
    expect(await count(org.orgId)).toBe(1);
  });

  it('a provisioning key reads no workspace data', async () => {
    for (const path of ['/contacts', '/campaigns', '/sequences', '/enrollments', '/inboxes', '/threads']) {
      const res = await api(app, t.provisioningToken).get(path);
      expect({ path, status: res.status, type: res.body.error?.type }).toEqual({
        path,
        status: 403,
        type: 'forbidden',
      });
    }
    const write = await api(app, t.provisioningToken).post('/contacts').send({ email: 'a@example.com' });
    expect(write.status).toBe(403);
  });

  it('rotating and revoking the provisioning key leaves the workspace keys it minted working', async () => {
    const org = await emptyOrg(5);
    const made = await create(org.token, { name: 'Outlives its maker' });
    const minted: string = made.body.data.api_key.token;
    const keys = app.get(ApiKeysService);
    const rotated = await keys.rotate(org.keyId);
    expect(rotated.key.id).toBe(org.keyId);
    expect((await api(app, org.token).get(LIST)).status).toBe(401);
    expect((await api(app, rotated.token).get(LIST)).status).toBe(200);
    expect((await api(app, minted).get('/me')).status).toBe(200);
    await keys.revoke(org.keyId);
    expect((await api(app, rotated.token).get(LIST)).status).toBe(401);
    const me = await api(app, minted).get('/me');
    expect(me.status).toBe(200);
    expect(me.body.data.workspace_id).toBe(made.body.data.workspace.id);
    expect((await api(app, minted).get('/contacts')).status).toBe(200);
  });

  it('needs workspaces:create to create and workspaces:configure to seed, list and show', async () => {
    const createOnly = (
      await app.get(ApiKeysService).create({
        tier: 'provisioning',
        organizationId: t.organizationId,
        scopes: ['workspaces:create'],
      })
    ).token;
    const configureOnly = (
      await app.get(ApiKeysService).create({
        tier: 'provisioning',
        organizationId: t.organizationId,
        scopes: ['workspaces:configure'],
      })
    ).token;
    expect((await create(createOnly, { name: 'Scoped' })).status).toBe(201);
    expect((await create(configureOnly, { name: 'Scoped' })).status).toBe(403);
    expect((await api(app, createOnly).get(LIST)).status).toBe(403);
    expect((await api(app, createOnly).get(`${LIST}/${t.workspaceId}`)).status).toBe(403);
    expect(
      (await api(app, createOnly).post(`${LIST}/${t.workspaceId}/seed`).send({ config: {} })).status,
    ).toBe(403);
    expect((await api(app, configureOnly).get(LIST)).status).toBe(200);
  });
});
