import type { Test } from 'supertest';
import { Contact } from '../../src/modules/contacts/entities/contact.entity.js';
import { Enrollment } from '../../src/modules/enrollments/entities/enrollment.entity.js';
import type { EnrollmentStatus } from '../../src/modules/enrollments/enrollment-state.js';
import { connectInbox } from '../../src/modules/inboxes/inboxes.service.js';
import { Sequence } from '../../src/modules/sequences/entities/sequence.entity.js';
import { Suppression } from '../../src/modules/suppressions/entities/suppression.entity.js';
import { api, createTenant, type TestTenant, useApp, app, db } from '../helpers/app.js';

const MALFORMED = ['abc', '0', '-1', '1'.repeat(30)];
const SCHEDULE = {
  timezone: 'UTC',
  days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
  start_time: '00:00',
  end_time: '24:00',
};
type Action = 'pause' | 'resume' | 'stop';
const EXPECTED: Record<EnrollmentStatus, Record<Action, EnrollmentStatus | null>> = {
  active: { pause: 'paused', resume: null, stop: 'stopped' },
  paused: { pause: null, resume: 'active', stop: 'stopped' },
  completed: { pause: null, resume: null, stop: null },
  stopped: { pause: null, resume: null, stop: null },
  skipped: { pause: null, resume: null, stop: null },
};

describe('enrollments', () => {
  useApp();
  let t: TestTenant;
  let other: TestTenant;
  let n = 0;

  const contact = async (tenant: TestTenant, extra: Partial<Contact> = {}): Promise<Contact> => {
    n += 1;
    const repo = db.getRepository(Contact);
    return repo.save(
      repo.create({ workspaceId: tenant.workspaceId, email: `c${n}@example${n}.test`, ...extra }),
    );
  };
  /** An active campaign whose first step waits `delay` minutes. */
  const activeCampaign = async (
    tenant: TestTenant,
    delay = 30,
  ): Promise<{ id: number; sequenceId: number }> => {
    n += 1;
    const { inbox } = await connectInbox(db, {
      workspaceId: tenant.workspaceId,
      email: `out${n}@sender${n}.test`,
      smtp: { host: '127.0.0.1', port: 2525, secure: false, user: null, password: null },
    });
    const seq = await api(app, tenant.token)
      .post('/sequences')
      .send({
        name: 'S',
        steps: [
          { position: 1, delay_minutes: delay, subject: 'Hi', body: 'Hello' },
          { position: 2, delay_minutes: 1440, subject: null, body: 'Bump' },
        ],
      });
    await api(app, tenant.token).post(`/sequences/${seq.body.data.id}/publish`).expect(200);
    const c = await api(app, tenant.token)
      .post('/campaigns')
      .send({ name: 'C', sequence_id: seq.body.data.id, inbox_ids: [inbox.id], schedule: SCHEDULE });
    await api(app, tenant.token).patch(`/campaigns/${c.body.data.id}`).send({ status: 'active' }).expect(200);
    return { id: c.body.data.id as number, sequenceId: seq.body.data.id as number };
  };
  const enroll = (campaignId: number | string, body: unknown, tenant = t) =>
    api(app, tenant.token)
      .post(`/campaigns/${campaignId}/enrollments`)
      .send(body as object);
  const enrolledMetric = async (tenant: TestTenant, campaignId: number): Promise<number> => {
    const rows = (await db.query(
      'SELECT COALESCE(SUM(enrolled), 0)::int AS n FROM daily_metrics WHERE workspace_id = $1 AND campaign_id = $2',
      [tenant.workspaceId, campaignId],
    )) as Array<{ n: number }>;
    return rows[0].n;
  };

  beforeAll(async () => {
    t = await createTenant(app);
    other = await createTenant(app);
  });

  it('enrolls a sendable contact: 201, active, next_step_at = now + step 1 delay, enrolled counted', async () => {
    const camp = await activeCampaign(t, 30);
    const c = await contact(t);
    const before = Date.now();
    const res = await enroll(camp.id, { contact_id: c.id });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      campaign_id: camp.id,
      contact_id: c.id,
      status: 'active',
      current_step: 0,
      inbox_id: null,
      stop_reason: null,
      stop_note: null,
      completed_at: null,
      stopped_at: null,
    });
    expect(Object.keys(res.body.data).sort()).toEqual(
      [
        'campaign_id',
        'completed_at',
        'contact_id',
        'created_at',
        'current_step',
        'held_reason',
        'held_until',
        'id',
        'inbox_id',
        'next_step_at',
        'parent_enrollment_id',
        'status',
        'stop_note',
        'stop_reason',
        'stopped_at',
        'subsequence_id',
        'updated_at',
      ].sort(),
    );
    const next = Date.parse(res.body.data.next_step_at);
    expect(next).toBeGreaterThanOrEqual(before + 30 * 60_000 - 1000);
    expect(next).toBeLessThanOrEqual(Date.now() + 30 * 60_000 + 1000);
    expect(await enrolledMetric(t, camp.id)).toBe(1);
    const shown = await api(app, t.token).get(`/enrollments/${res.body.data.id}`);
    expect(shown.body.data).toEqual(res.body.data);
  });

  it('answers 422 for every enrollment rule, naming campaign_id or contact_id, and counts nothing', async () => {
    const camp = await activeCampaign(t);
    const ok = await contact(t);
    const foreignContact = await contact(other);
    const suppressed = await contact(t, { suppressionReason: 'bounced', suppressedAt: new Date() });
    const domainSuppressed = await contact(t, { email: 'someone@blocked-domain.test' });
    await db
      .getRepository(Suppression)
      .save({ workspaceId: t.workspaceId, domain: 'blocked-domain.test', reason: 'manual' as const });
    const enrolledOnce = await contact(t);
    expect((await enroll(camp.id, { contact_id: enrolledOnce.id })).status).toBe(201);

    const draft = (await api(app, t.token).post('/campaigns').send({ name: 'draft' })).body.data.id as number;
    const paused = await activeCampaign(t);
    await api(app, t.token).patch(`/campaigns/${paused.id}`).send({ status: 'paused' }).expect(200);
    const archived = await activeCampaign(t);
    await api(app, t.token).patch(`/campaigns/${archived.id}`).send({ status: 'archived' }).expect(200);
    const seqArchived = await activeCampaign(t);
    await api(app, t.token)
      .patch(`/sequences/${seqArchived.sequenceId}`)
      .send({ status: 'archived' })
      .expect(200);
    const seqUnpublished = await activeCampaign(t);
    await db.getRepository(Sequence).update({ id: seqUnpublished.sequenceId }, { status: 'draft' });
    const seqEmpty = await activeCampaign(t);
    await db.getRepository(Sequence).update({ id: seqEmpty.sequenceId }, { steps: [] });

    const cases: Array<[string, number, unknown, string]> = [
      ['campaign draft', draft, { contact_id: ok.id }, 'campaign_id'],
      ['campaign paused', paused.id, { contact_id: ok.id }, 'campaign_id'],
      ['campaign archived', archived.id, { contact_id: ok.id }, 'campaign_id'],
      ['sequence archived', seqArchived.id, { contact_id: ok.id }, 'campaign_id'],
      ['sequence unpublished', seqUnpublished.id, { contact_id: ok.id }, 'campaign_id'],
      ['sequence without steps', seqEmpty.id, { contact_id: ok.id }, 'campaign_id'],
      ['contact absent', camp.id, { contact_id: 2147483647 }, 'contact_id'],
      ['contact of another workspace', camp.id, { contact_id: foreignContact.id }, 'contact_id'],
      ['contact suppressed', camp.id, { contact_id: suppressed.id }, 'contact_id'],
      ['contact domain suppressed', camp.id, { contact_id: domainSuppressed.id }, 'contact_id'],
      ['already enrolled', camp.id, { contact_id: enrolledOnce.id }, 'contact_id'],
      ['contact_id missing', camp.id, {}, 'contact_id'],
      ['contact_id not an integer', camp.id, { contact_id: 'abc' }, 'contact_id'],
      ['contact_id zero', camp.id, { contact_id: 0 }, 'contact_id'],
      ['contact_id too large', camp.id, { contact_id: 1e12 }, 'contact_id'],
      ['unknown field', camp.id, { contact_id: ok.id, campaign_id: 1 }, 'campaign_id'],
    ];
    for (const [what, campaignId, body, field] of cases) {
      const res = await enroll(campaignId, body);
      expect({ what, status: res.status, type: res.body.error?.type, field: res.body.error?.field }).toEqual({
        what,
        status: 422,
        type: 'validation_failed',
        field,
      });
    }
    expect(await enrolledMetric(t, camp.id)).toBe(1);
    for (const c of [draft, paused.id, archived.id, seqArchived.id, seqUnpublished.id, seqEmpty.id]) {
      expect(await db.getRepository(Enrollment).count({ where: { campaignId: c } })).toBe(0);
    }
    // The same contact enrolls fine once the rule no longer applies.
    expect((await enroll(camp.id, { contact_id: ok.id })).status).toBe(201);
  });

  it('enrolls a contact once under concurrency and counts it once', async () => {
    const camp = await activeCampaign(t);
    const c = await contact(t);
    const results = await Promise.all(Array.from({ length: 6 }, () => enroll(camp.id, { contact_id: c.id })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 422, 422, 422, 422, 422]);
    expect(await enrolledMetric(t, camp.id)).toBe(1);
  });

  it('answers 404 when the campaign is absent, foreign or malformed', async () => {
    const foreign = await activeCampaign(other);
    const c = await contact(t);
    const bodies = new Set<string>();
    for (const id of [String(foreign.id), '2147483647', ...MALFORMED]) {
      const res = await enroll(id, { contact_id: c.id });
      expect({ id, status: res.status }).toEqual({ id, status: 404 });
      bodies.add(JSON.stringify(res.body));
    }
    expect(bodies.size).toBe(1);
    expect(await db.getRepository(Enrollment).count({ where: { campaignId: foreign.id } })).toBe(0);
  });

  describe('every status × action over HTTP', () => {
    let camp: { id: number };
    beforeAll(async () => {
      camp = await activeCampaign(t);
    });
    const enrollmentIn = async (status: EnrollmentStatus): Promise<number> => {
      const c = await contact(t);
      const id = (await enroll(camp.id, { contact_id: c.id })).body.data.id as number;
      if (status === 'paused') await api(app, t.token).post(`/enrollments/${id}/pause`).expect(200);
      if (status === 'stopped')
        await api(app, t.token).post(`/enrollments/${id}/stop`).send({ reason: 'x' }).expect(200);
      if (status === 'completed') {
        await db
          .getRepository(Enrollment)
          .update({ id }, { status: 'completed', completedAt: new Date(), currentStep: 2, nextStepAt: null });
      }
      return id;
    };
    const pairs = (['active', 'paused', 'completed', 'stopped'] as const).flatMap((s) =>
      (['pause', 'resume', 'stop'] as const).map((a) => [s, a, EXPECTED[s][a]] as const),
    );
    it.each(pairs)('%s + %s → %s', async (status, action, expected) => {
      const id = await enrollmentIn(status);
      const req = api(app, t.token).post(`/enrollments/${id}/${action}`);
      const res = action === 'stop' ? await req.send({ reason: 'Asked us to stop' }) : await req;
      const after = (await api(app, t.token).get(`/enrollments/${id}`)).body.data;
      if (expected === null) {
        expect(res.status).toBe(409);
        expect(res.body.error.type).toBe('conflict');
        expect(after.status).toBe(status);
      } else {
        expect(res.status).toBe(200);
        expect(res.body.data.status).toBe(expected);
        expect(after).toEqual(res.body.data);
        if (expected === 'stopped') {
          expect(after).toMatchObject({ stop_reason: 'manual', stop_note: 'Asked us to stop' });
          expect(after.stopped_at).toEqual(expect.any(String));
        }
      }
    });
  });

  it('validates the stop body', async () => {
    const camp = await activeCampaign(t);
    const id = (await enroll(camp.id, { contact_id: (await contact(t)).id })).body.data.id as number;
    for (const body of [
      {},
      { reason: '' },
      { reason: 'x'.repeat(501) },
      { reason: 5 },
      { reason: null },
      { reason: 'a\u0000' },
      { reason: 'ok', extra: 1 },
    ]) {
      const res = await api(app, t.token).post(`/enrollments/${id}/stop`).send(body);
      expect(res.status).toBe(422);
      expect(['reason', 'extra']).toContain(res.body.error.field);
    }
    expect((await api(app, t.token).get(`/enrollments/${id}`)).body.data.status).toBe('active');
    const long = await api(app, t.token)
      .post(`/enrollments/${id}/stop`)
      .send({ reason: 'y'.repeat(500) });
    expect(long.status).toBe(200);
    expect(long.body.data.stop_note).toBe('y'.repeat(500));
  });

  it('lets exactly one of several concurrent actions win', async () => {
    const camp = await activeCampaign(t);
    const id = (await enroll(camp.id, { contact_id: (await contact(t)).id })).body.data.id as number;
    const pauses = await Promise.all(
      Array.from({ length: 5 }, () => api(app, t.token).post(`/enrollments/${id}/pause`)),
    );
    expect(pauses.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409]);
    const mixed = await Promise.all([
      api(app, t.token).post(`/enrollments/${id}/stop`).send({ reason: 'done' }),
      api(app, t.token).post(`/enrollments/${id}/resume`),
    ]);
    const final = (await api(app, t.token).get(`/enrollments/${id}`)).body.data;
    // stop wins in either order (resume then stop is allowed; stop then resume is a 409).
    expect(final.status).toBe('stopped');
    expect(mixed[0].status).toBe(200);
  });

  it('filters the list by campaign, contact and status; bad values are 422; unknown params ignored', async () => {
    const tenant = await createTenant(app);
    const a = await activeCampaign(tenant);
    const b = await activeCampaign(tenant);
    const c1 = await contact(tenant);
    const c2 = await contact(tenant);
    const e1 = (await enroll(a.id, { contact_id: c1.id }, tenant)).body.data.id as number;
    const e2 = (await enroll(a.id, { contact_id: c2.id }, tenant)).body.data.id as number;
    const e3 = (await enroll(b.id, { contact_id: c1.id }, tenant)).body.data.id as number;
    await api(app, tenant.token).post(`/enrollments/${e2}/pause`).expect(200);
    const ids = async (qs: string): Promise<number[]> => {
      const res = await api(app, tenant.token).get(`/enrollments${qs}`);
      expect(res.status).toBe(200);
      return res.body.data.map((e: { id: number }) => e.id);
    };
    expect(await ids('')).toEqual([e3, e2, e1]);
    expect(await ids(`?campaign_id=${a.id}`)).toEqual([e2, e1]);
    expect(await ids(`?contact_id=${c1.id}`)).toEqual([e3, e1]);
    expect(await ids('?status=paused')).toEqual([e2]);
    expect(await ids('?status=active,paused')).toEqual([e3, e2, e1]);
    expect(await ids(`?campaign_id=${a.id}&status=active`)).toEqual([e1]);
    expect(await ids('?status=stopped')).toEqual([]);
    expect(await ids('?workspace_id=x&campaign=1&foo=bar')).toEqual([e3, e2, e1]);
    const p1 = await api(app, tenant.token).get('/enrollments?per_page=2');
    expect(p1.body.data.map((e: { id: number }) => e.id)).toEqual([e3, e2]);
    const p2 = await api(app, tenant.token).get(`/enrollments?per_page=2&cursor=${p1.body.next_cursor}`);
    expect(p2.body.data.map((e: { id: number }) => e.id)).toEqual([e1]);
    for (const [qs, field] of [
      ['?campaign_id=abc', 'campaign_id'],
      ['?campaign_id=0', 'campaign_id'],
      ['?campaign_id=-1', 'campaign_id'],
      ['?campaign_id=1.5', 'campaign_id'],
      [`?campaign_id=${'9'.repeat(30)}`, 'campaign_id'],
      ['?contact_id=x', 'contact_id'],
      ['?campaign_id=1e3', 'campaign_id'],
      ['?campaign_id=0x10', 'campaign_id'],
      ['?contact_id=%201', 'contact_id'],
      ['?status=done', 'status'],
      ['?status=active,nope', 'status'],
      ['?status=', 'status'],
      ['?per_page=101', 'per_page'],
    ] as const) {
      const res = await api(app, tenant.token).get(`/enrollments${qs}`);
      expect({ qs, status: res.status, field: res.body.error?.field }).toEqual({ qs, status: 422, field });
    }
    // Another tenant sees none of them.
    expect((await api(app, other.token).get(`/enrollments?campaign_id=${a.id}`)).body.data).toEqual([]);
  });

  it('answers the same 404 for foreign, missing and malformed ids on every enrollment id route', async () => {
    const camp = await activeCampaign(other);
    const foreign = (await enroll(camp.id, { contact_id: (await contact(other)).id }, other)).body.data
      .id as number;
    const routes: Array<[string, (id: string) => string, Record<string, unknown> | undefined]> = [
      ['get', (id) => `/enrollments/${id}`, undefined],
      ['post', (id) => `/enrollments/${id}/pause`, undefined],
      ['post', (id) => `/enrollments/${id}/resume`, undefined],
      ['post', (id) => `/enrollments/${id}/stop`, { reason: 'mine' }],
    ];
    for (const [method, path, body] of routes) {
      const bodies = new Set<string>();
      for (const id of [String(foreign), '2147483647', ...MALFORMED]) {
        const client = api(app, t.token) as unknown as Record<string, (p: string) => Test>;
        let req = client[method](path(id));
        if (body) req = req.send(body);
        const res = await req;
        expect({ path: path(id), status: res.status }).toEqual({ path: path(id), status: 404 });
        bodies.add(JSON.stringify(res.body));
      }
      expect(bodies.size).toBe(1);
    }
    expect((await api(app, other.token).get(`/enrollments/${foreign}`)).body.data.status).toBe('active');
  });
});
