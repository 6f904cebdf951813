import type { Test } from 'supertest';
import type { CampaignStatus } from '../../src/modules/campaigns/entities/campaign.entity.js';
import { Inbox } from '../../src/modules/inboxes/entities/inbox.entity.js';
import { connectInbox } from '../../src/modules/inboxes/inboxes.service.js';
import { api, createTenant, type TestTenant, useApp, app, db } from '../helpers/app.js';

const MALFORMED = ['abc', '0', '-1', '1'.repeat(30)];
const SCHEDULE = {
  timezone: 'Europe/Paris',
  days: ['mon', 'tue', 'wed', 'thu', 'fri'],
  start_time: '09:00',
  end_time: '17:00',
};
const STATUSES: CampaignStatus[] = ['draft', 'active', 'paused', 'archived'];
const ALLOWED: Record<CampaignStatus, CampaignStatus[]> = {
  draft: ['active'],
  active: ['paused', 'archived'],
  paused: ['active', 'archived'],
  archived: [],
};

describe('campaigns', () => {
  useApp();
  let t: TestTenant;
  let other: TestTenant;
  let inboxId: string;
  let sequenceId: number;
  let n = 0;

  const inbox = async (tenant: TestTenant, status: Inbox['status'] = 'active'): Promise<string> => {
    n += 1;
    const { inbox: row } = await connectInbox(db, {
      workspaceId: tenant.workspaceId,
      email: `sender${n}@mail${n}.test`,
      smtp: { host: '127.0.0.1', port: 2525, secure: false, user: null, password: null },
    });
    if (status !== 'active') await db.getRepository(Inbox).update({ id: row.id }, { status });
    return row.id;
  };
  const sequence = async (tenant: TestTenant, publish = true, steps = true): Promise<number> => {
    const body = {
      name: 'Seq',
      steps: steps ? [{ position: 1, delay_minutes: 0, subject: 'Hi', body: 'Hello' }] : [],
    };
    const id = (await api(app, tenant.token).post('/sequences').send(body)).body.data.id as number;
    if (publish) expect((await api(app, tenant.token).post(`/sequences/${id}/publish`)).status).toBe(200);
    return id;
  };
  const create = (body: Record<string, unknown>, tenant = t) =>
    api(app, tenant.token).post('/campaigns').send(body);
  const patch = (id: number, body: Record<string, unknown>) =>
    api(app, t.token).patch(`/campaigns/${id}`).send(body);
  const ready = async (): Promise<number> =>
    (await create({ name: 'Ready', sequence_id: sequenceId, inbox_ids: [inboxId], schedule: SCHEDULE })).body
      .data.id as number;
  const campaignIn = async (status: CampaignStatus): Promise<number> => {
    const id = await ready();
    const path: Record<CampaignStatus, CampaignStatus[]> = {
      draft: [],
      active: ['active'],
      paused: ['active', 'paused'],
      archived: ['active', 'archived'],
    };
    for (const s of path[status]) expect((await patch(id, { status: s })).status).toBe(200);
    return id;
  };

  beforeAll(async () => {
    t = await createTenant(app);
    other = await createTenant(app);
    inboxId = await inbox(t);
    sequenceId = await sequence(t);
  });

  it('creates a draft with defaults and the documented fields', async () => {
    const res = await create({ name: 'Q3 outreach' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      name: 'Q3 outreach',
      sequence_id: null,
      status: 'draft',
      inbox_ids: [],
      schedule: null,
      daily_limit: null,
      stop_on_reply: true,
      activated_at: null,
      // Issue 16 (additive): no scheduled start, the schedule's own zone, stop the replier only, not paused.
      start_at: null,
      send_in_contact_timezone: false,
      stop_on_reply_scope: 'contact',
      paused_reason: null,
      // Address verdicts: invalid ones are skipped by default (CONTRACT §24).
      verification: 'skip_invalid',
    });
    expect(Object.keys(res.body.data).sort()).toEqual(
      [
        'activated_at',
        'created_at',
        'daily_limit',
        'id',
        'inbox_ids',
        'name',
        'paused_reason',
        'schedule',
        'send_in_contact_timezone',
        'sequence_id',
        'start_at',
        'status',
        'stop_on_reply',
        'stop_on_reply_scope',
        'updated_at',
        'verification',
      ].sort(),
    );
    const full = await create({
      name: 'Full',
      sequence_id: sequenceId,
      inbox_ids: [inboxId.toUpperCase()],
      schedule: { ...SCHEDULE, end_time: '24:00' },
      daily_limit: 200,
      stop_on_reply: false,
    });
    expect(full.status).toBe(201);
    expect(full.body.data).toMatchObject({
      sequence_id: sequenceId,
      inbox_ids: [inboxId],
      schedule: { ...SCHEDULE, end_time: '24:00' },
      daily_limit: 200,
      stop_on_reply: false,
    });
    expect((await api(app, t.token).get(`/campaigns/${full.body.data.id}`)).body.data).toEqual(
      full.body.data,
    );
  });

  it('validates fields and references, naming the field', async () => {
    const foreignSeq = await sequence(other);
    const foreignInbox = await inbox(other);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'name'],
      [{ name: '' }, 'name'],
      [{ name: 'x', status: 'active' }, 'status'],
      [{ name: 'x', sequence_id: foreignSeq }, 'sequence_id'],
      [{ name: 'x', sequence_id: 2147483647 }, 'sequence_id'],
      [{ name: 'x', sequence_id: 'abc' }, 'sequence_id'],
      [{ name: 'x', inbox_ids: [inboxId, foreignInbox] }, 'inbox_ids.1'],
      [{ name: 'x', inbox_ids: ['not-a-uuid'] }, 'inbox_ids'],
      [{ name: 'x', inbox_ids: [inboxId, inboxId] }, 'inbox_ids'],
      [{ name: 'x', schedule: { ...SCHEDULE, timezone: 'Mars/Base' } }, 'schedule.timezone'],
      [{ name: 'x', schedule: { ...SCHEDULE, timezone: '+02:00' } }, 'schedule.timezone'],
      [{ name: 'x', schedule: { ...SCHEDULE, days: ['mon', 'funday'] } }, 'schedule.days'],
      [{ name: 'x', schedule: { ...SCHEDULE, days: [] } }, 'schedule.days'],
      [{ name: 'x', schedule: { ...SCHEDULE, start_time: '9am' } }, 'schedule.start_time'],
      [{ name: 'x', schedule: { ...SCHEDULE, end_time: '24:30' } }, 'schedule.end_time'],
      [{ name: 'x', schedule: { ...SCHEDULE, start_time: '18:00' } }, 'schedule.end_time'],
      [{ name: 'x', schedule: { ...SCHEDULE, extra: true } }, 'schedule.extra'],
      [{ name: 'x', daily_limit: 0 }, 'daily_limit'],
      [{ name: 'x', stop_on_reply: 'yes' }, 'stop_on_reply'],
      [{ name: 'x', stop_on_reply: null }, 'stop_on_reply'],
      [{ name: 'x\u0000' }, 'name'],
      [{ name: 'x', inbox_ids: null }, 'inbox_ids'],
      [{ name: 'x', schedule: { ...SCHEDULE, timezone: 'UTC\u0000' } }, 'schedule.timezone'],
    ];
    for (const [body, field] of cases) {
      const res = await create(body);
      expect({ body, status: res.status, field: res.body.error?.field }).toEqual({
        body,
        status: 422,
        field,
      });
    }
  });

  it('activation needs a published sequence with steps, an active inbox and a schedule (422 naming each)', async () => {
    const draftSeq = await sequence(t, false);
    const emptySeq = (await api(app, t.token).post('/sequences').send({ name: 'empty' })).body.data
      .id as number;
    const pausedInbox = await inbox(t, 'paused');
    const errorInbox = await inbox(t, 'error');
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ inbox_ids: [inboxId], schedule: SCHEDULE }, 'sequence_id'],
      [{ sequence_id: draftSeq, inbox_ids: [inboxId], schedule: SCHEDULE }, 'sequence_id'],
      [{ sequence_id: emptySeq, inbox_ids: [inboxId], schedule: SCHEDULE }, 'sequence_id'],
      [{ sequence_id: sequenceId, schedule: SCHEDULE }, 'inbox_ids'],
      [{ sequence_id: sequenceId, inbox_ids: [pausedInbox, errorInbox], schedule: SCHEDULE }, 'inbox_ids'],
      [{ sequence_id: sequenceId, inbox_ids: [inboxId] }, 'schedule'],
    ];
    for (const [fields, field] of cases) {
      const id = (await create({ name: 'not ready', ...fields })).body.data.id as number;
      const res = await patch(id, { status: 'active' });
      expect({ fields, status: res.status, field: res.body.error?.field }).toEqual({
        fields,
        status: 422,
        field,
      });
      expect((await api(app, t.token).get(`/campaigns/${id}`)).body.data.status).toBe('draft');
    }
    const mixed = await create({
      name: 'one good inbox',
      sequence_id: sequenceId,
      inbox_ids: [pausedInbox, inboxId],
      schedule: SCHEDULE,
    });
    const ok = await patch(mixed.body.data.id, { status: 'active' });
    expect(ok.status).toBe(200);
    expect(ok.body.data.status).toBe('active');
    expect(ok.body.data.activated_at).toEqual(expect.any(String));
    // Fields and status in one PATCH: the readiness check sees the merged campaign.
    const oneShot = (await create({ name: 'one shot' })).body.data.id as number;
    const res = await patch(oneShot, {
      status: 'active',
      sequence_id: sequenceId,
      inbox_ids: [inboxId],
      schedule: SCHEDULE,
    });
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('active');
  });

  describe('every status pair over HTTP', () => {
    const pairs = STATUSES.flatMap((from) => STATUSES.map((to) => [from, to] as const));
    it.each(pairs)('%s → %s', async (from, to) => {
      const id = await campaignIn(from);
      const res = await patch(id, { status: to });
      const expected = from === to ? 200 : ALLOWED[from].includes(to) ? 200 : 409;
      expect(res.status).toBe(expected);
      const now = (await api(app, t.token).get(`/campaigns/${id}`)).body.data.status;
      if (expected === 409) {
        expect(res.body.error.type).toBe('conflict');
        expect(now).toBe(from);
      } else {
        expect(now).toBe(to);
      }
    });
  });

  it('keeps an active campaign ready, freezes the sequence after draft and an archived campaign entirely', async () => {
    const id = await campaignIn('active');
    const noInbox = await patch(id, { inbox_ids: [] });
    expect(noInbox.status).toBe(422);
    expect(noInbox.body.error.field).toBe('inbox_ids');
    const noSchedule = await patch(id, { schedule: null });
    expect(noSchedule.status).toBe(422);
    expect(noSchedule.body.error.field).toBe('schedule');
    expect((await patch(id, { daily_limit: 10, name: 'renamed' })).body.data).toMatchObject({
      daily_limit: 10,
      name: 'renamed',
      status: 'active',
    });
    const otherSeq = await sequence(t);
    expect((await patch(id, { sequence_id: otherSeq })).status).toBe(409);
    expect((await patch(id, { sequence_id: sequenceId })).status).toBe(200);
    const archived = await campaignIn('archived');
    expect((await patch(archived, { name: 'x' })).status).toBe(409);
  });

  it('activates exactly once under concurrency', async () => {
    const id = await ready();
    const results = await Promise.all(Array.from({ length: 5 }, () => patch(id, { status: 'active' })));
    // The first activation moves draft → active; the rest find it active and change nothing.
    expect(results.every((r) => r.status === 200)).toBe(true);
    const activatedAt = new Set(results.map((r) => r.body.data.activated_at));
    expect(activatedAt.size).toBe(1);
    // archive and pause race from active: whichever order the row lock gives, archived is final
    // (pause first → archive from paused; archive first → pause is a 409). A lost update would end paused.
    const toggles = await Promise.all([patch(id, { status: 'archived' }), patch(id, { status: 'paused' })]);
    const final = (await api(app, t.token).get(`/campaigns/${id}`)).body.data.status;
    expect(final).toBe('archived');
    expect(toggles[0].status).toBe(200);
  });

  it('lists only this tenant, newest first', async () => {
    const fresh = await createTenant(app);
    const a = (await create({ name: 'A' }, fresh)).body.data.id;
    const b = (await create({ name: 'B' }, fresh)).body.data.id;
    const res = await api(app, fresh.token).get('/campaigns?status=archived');
    expect(res.body.data.map((c: { id: number }) => c.id)).toEqual([b, a]);
    expect((await api(app, fresh.token).get('/campaigns?per_page=0')).status).toBe(422);
  });

  it('answers the same 404 for foreign, missing and malformed ids on every id route', async () => {
    const foreign = (await create({ name: 'theirs' }, other)).body.data.id as number;
    const routes: Array<[string, (id: string) => string, Record<string, unknown> | undefined]> = [
      ['get', (id) => `/campaigns/${id}`, undefined],
      ['patch', (id) => `/campaigns/${id}`, { name: 'mine' }],
    ];
    for (const [method, path, body] of routes) {
      const bodies = new Set<string>();
      for (const id of [String(foreign), '2147483647', ...MALFORMED]) {
        const client = api(app, t.token) as unknown as Record<string, (p: string) => Test>;
        let req = client[method](path(id));
        if (body) req = req.send(body);
        const res = await req;
        expect({ method, id, status: res.status }).toEqual({ method, id, status: 404 });
        bodies.add(JSON.stringify(res.body));
      }
      expect(bodies.size).toBe(1);
    }
    expect((await api(app, other.token).get(`/campaigns/${foreign}`)).body.data.name).toBe('theirs');
  });
});
