import { api, createTenant, type TestTenant, useApp, app } from '../helpers/app.js';

describe('subsequences (CRUD)', () => {
  useApp();
  let t: TestTenant;
  let other: TestTenant;
  let campaignId: number;
  let sequenceId: number;

  const sequence = async (tenant: TestTenant, publish = true): Promise<number> => {
    const body = { name: 'Seq', steps: [{ position: 1, delay_minutes: 0, subject: 'Hi', body: 'Hello' }] };
    const id = (await api(app, tenant.token).post('/sequences').send(body)).body.data.id as number;
    if (publish) expect((await api(app, tenant.token).post(`/sequences/${id}/publish`)).status).toBe(200);
    return id;
  };
  const campaign = async (tenant: TestTenant): Promise<number> =>
    (await api(app, tenant.token).post('/campaigns').send({ name: 'C' })).body.data.id as number;
  const post = (body: Record<string, unknown>, c = campaignId, tenant = t) =>
    api(app, tenant.token).post(`/campaigns/${c}/subsequences`).send(body);
  const valid = (extra: Record<string, unknown> = {}) => ({
    name: 'Not now',
    trigger: { type: 'category', categories: ['not_now'] },
    sequence_id: sequenceId,
    ...extra,
  });

  beforeAll(async () => {
    t = await createTenant(app);
    other = await createTenant(app);
    sequenceId = await sequence(t);
    campaignId = await campaign(t);
  });

  it('creates, lists in position order, shows, changes and deletes', async () => {
    const c = await campaign(t);
    const a = await post(valid({ start_after_days: 3 }), c);
    expect(a.status).toBe(201);
    expect(a.body.data).toMatchObject({
      campaign_id: c,
      name: 'Not now',
      trigger: { type: 'category', categories: ['not_now'] },
      sequence_id: sequenceId,
      start_after_days: 3,
      position: 0,
      status: 'active',
    });
    expect(typeof a.body.data.created_at).toBe('string');
    const b = await post(valid({ name: 'Done', trigger: { type: 'completed' }, position: 0 }), c);
    expect(b.status).toBe(201);
    const list = await api(app, t.token).get(`/campaigns/${c}/subsequences`);
    expect(list.status).toBe(200);
    expect(list.body.data.map((s: { name: string }) => s.name).sort()).toEqual(['Done', 'Not now']);
    const patched = await api(app, t.token)
      .patch(`/campaigns/${c}/subsequences/${a.body.data.id}`)
      .send({ status: 'paused', start_after_days: 0, trigger: { type: 'referral' } });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({
      status: 'paused',
      start_after_days: 0,
      trigger: { type: 'referral' },
    });
    const shown = await api(app, t.token).get(`/campaigns/${c}/subsequences/${a.body.data.id}`);
    expect(shown.body.data).toMatchObject({ status: 'paused', trigger: { type: 'referral' } });
    expect((await api(app, t.token).delete(`/campaigns/${c}/subsequences/${a.body.data.id}`)).status).toBe(
      204,
    );
    expect((await api(app, t.token).get(`/campaigns/${c}/subsequences/${a.body.data.id}`)).status).toBe(404);
    expect((await api(app, t.token).get(`/campaigns/${c}/subsequences`)).body.data).toHaveLength(1);
  });

  it.each([
    [
      'an unsubscribe_request trigger',
      { trigger: { type: 'category', categories: ['unsubscribe_request'] } },
      'trigger.categories.0',
    ],
    ['an unknown trigger type', { trigger: { type: 'opened' } }, 'trigger.type'],
    ['an empty category list', { trigger: { type: 'category', categories: [] } }, 'trigger.categories'],
    ['an unknown category', { trigger: { type: 'category', categories: ['hot'] } }, 'trigger.categories.0'],
    ['start_after_days above 365', { start_after_days: 366 }, 'start_after_days'],
    ['start_after_days below 0', { start_after_days: -1 }, 'start_after_days'],
    ['an unknown sequence', { sequence_id: 999999999 }, 'sequence_id'],
  ])('refuses %s with 422 naming the field', async (_what, extra, field) => {
    const res = await post(valid(extra));
    expect(res.status).toBe(422);
    expect(res.body.error.type).toBe('validation_failed');
    expect(res.body.error.field).toBe(field);
  });

  it('refuses an unpublished sequence and another workspace’s sequence (422 sequence_id)', async () => {
    const draft = await sequence(t, false);
    const res = await post(valid({ sequence_id: draft }));
    expect(res.status).toBe(422);
    expect(res.body.error.field).toBe('sequence_id');
    const theirs = await sequence(other);
    const foreign = await post(valid({ sequence_id: theirs }));
    expect(foreign.status).toBe(422);
    expect(foreign.body.error.field).toBe('sequence_id');
    expect(foreign.body.error.message).toBe(
      (await post(valid({ sequence_id: 999999999 }))).body.error.message,
    );
  });

  it('refuses an eleventh subsequence (422)', async () => {
    const c = await campaign(t);
    for (let i = 0; i < 10; i += 1) expect((await post(valid({ name: `S${i}` }), c)).status).toBe(201);
    const res = await post(valid({ name: 'S10' }), c);
    expect(res.status).toBe(422);
    expect(res.body.error.type).toBe('validation_failed');
    expect((await api(app, t.token).get(`/campaigns/${c}/subsequences`)).body.data).toHaveLength(10);
  });

  it('answers another workspace’s campaign and subsequence with the same 404 as unknown ones', async () => {
    const created = await post(valid());
    const sid = created.body.data.id as number;
    const unknown = await api(app, other.token).get(`/campaigns/999999999/subsequences`);
    const foreign = await api(app, other.token).get(`/campaigns/${campaignId}/subsequences`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toEqual({ ...unknown.body.error, request_id: foreign.body.error.request_id });
    for (const res of [
      await post(valid(), campaignId, other),
      await api(app, other.token).get(`/campaigns/${campaignId}/subsequences/${sid}`),
      await api(app, other.token).patch(`/campaigns/${campaignId}/subsequences/${sid}`).send({ name: 'x' }),
      await api(app, other.token).delete(`/campaigns/${campaignId}/subsequences/${sid}`),
    ])
      expect(res.status).toBe(404);
    expect((await api(app, t.token).get(`/campaigns/${campaignId}/subsequences/${sid}`)).status).toBe(200);
  });

  it('never answers 500 to malformed bodies', async () => {
    for (const body of [
      {},
      { trigger: 'x' },
      { trigger: null },
      { ...valid(), trigger: { type: 'category', categories: 'not_now' } },
      { ...valid(), extra: 1 },
    ])
      expect((await post(body)).status).toBeGreaterThanOrEqual(400);
    for (const body of [
      {},
      { trigger: 'x' },
      { ...valid(), trigger: { type: 'category', categories: 'not_now' } },
    ])
      expect((await post(body)).status).toBeLessThan(500);
  });
});
