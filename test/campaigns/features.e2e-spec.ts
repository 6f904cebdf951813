/**
 * Campaign features of issue 16 through the API (docs/campaign-features.md): `start_at`,
 * `send_in_contact_timezone`, `stop_on_reply_scope` and `paused_reason` on campaigns; step `variants`
 * validated like the step; `GET /analytics/steps` validation. What the engine does with them is in
 * test/sending/campaign-features.e2e-spec.ts.
 */
import { bumpStepMetrics } from '../helpers/domain-writes.js';
import { connectInbox } from '../../src/modules/inboxes/inboxes.service.js';
import { api, createTenant, type TestTenant, useApp, app, db, q } from '../helpers/app.js';
import { seedContact, seedEnrollment } from '../helpers/seed.js';

const SCHEDULE = {
  timezone: 'Europe/Paris',
  days: ['mon', 'tue', 'wed'],
  start_time: '09:00',
  end_time: '17:00',
};
const step = (position: number, over: Record<string, unknown> = {}) => ({
  position,
  delay_minutes: position === 1 ? 0 : 60,
  subject: position === 1 ? 'Hello {{ first_name }}' : null,
  body: 'Hi {{ first_name }}',
  ...over,
});

describe('campaign features (API)', () => {
  useApp();
  let t: TestTenant;
  let inboxId: string;
  let sequenceId: number;

  const createCampaign = (body: Record<string, unknown>) => api(app, t.token).post('/campaigns').send(body);
  const patch = (id: number, body: Record<string, unknown>) =>
    api(app, t.token).patch(`/campaigns/${id}`).send(body);
  const createSequence = (steps: unknown[]) =>
    api(app, t.token).post('/sequences').send({ name: 'S', steps });
  const expect422 = (
    res: { status: number; body: { error?: { type?: string; field?: string } } },
    field: string,
  ) =>
    expect({ status: res.status, type: res.body.error?.type, field: res.body.error?.field }).toEqual({
      status: 422,
      type: 'validation_failed',
      field,
    });

  beforeAll(async () => {
    t = await createTenant(app);
    const { inbox } = await connectInbox(db, {
      workspaceId: t.workspaceId,
      email: 'sender@features.test',
      smtp: { host: '127.0.0.1', port: 2525, secure: false, user: null, password: null },
    });
    inboxId = inbox.id;
    sequenceId = (await createSequence([step(1)])).body.data.id as number;
    expect((await api(app, t.token).post(`/sequences/${sequenceId}/publish`)).status).toBe(200);
  });

  it('start_at: an ISO timestamp with an offset, or null; settable on create and PATCH', async () => {
    const res = await createCampaign({ name: 'Later', start_at: '2030-01-01T09:00:00+02:00' });
    expect(res.status).toBe(201);
    expect(res.body.data.start_at).toBe('2030-01-01T07:00:00.000Z');
    const id = res.body.data.id as number;
    for (const bad of [
      '2030-02-30T09:00:00Z',
      '2030-01-01',
      '2030-01-01T09:00:00',
      'tomorrow',
      5,
      true,
      '',
    ]) {
      expect422(await createCampaign({ name: 'Bad', start_at: bad }), 'start_at');
      expect422(await patch(id, { start_at: bad }), 'start_at');
    }
    expect((await patch(id, { start_at: '2031-06-01T00:00:00.5Z' })).body.data.start_at).toBe(
      '2031-06-01T00:00:00.500Z',
    );
    expect((await patch(id, { start_at: null })).body.data.start_at).toBeNull();
  });

  it('send_in_contact_timezone (boolean, default false) and stop_on_reply_scope (contact|domain)', async () => {
    const res = await createCampaign({
      name: 'Local',
      send_in_contact_timezone: true,
      stop_on_reply_scope: 'domain',
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ send_in_contact_timezone: true, stop_on_reply_scope: 'domain' });
    const id = res.body.data.id as number;
    for (const [body, field] of [
      [{ send_in_contact_timezone: 'yes' }, 'send_in_contact_timezone'],
      [{ send_in_contact_timezone: null }, 'send_in_contact_timezone'],
      [{ stop_on_reply_scope: 'company' }, 'stop_on_reply_scope'],
      [{ stop_on_reply_scope: null }, 'stop_on_reply_scope'],
    ] as const) {
      expect422(await createCampaign({ name: 'Bad', ...body }), field);
      expect422(await patch(id, body), field);
    }
    const changed = await patch(id, { send_in_contact_timezone: false, stop_on_reply_scope: 'contact' });
    expect(changed.body.data).toMatchObject({
      send_in_contact_timezone: false,
      stop_on_reply_scope: 'contact',
    });
  });

  it('paused_reason: manual when paused by PATCH, null once active again (a new bounce window) or archived', async () => {
    const id = (
      await createCampaign({ name: 'P', sequence_id: sequenceId, inbox_ids: [inboxId], schedule: SCHEDULE })
    ).body.data.id as number;
    expect((await patch(id, { status: 'active' })).body.data.paused_reason).toBeNull();
    expect((await patch(id, { status: 'paused' })).body.data).toMatchObject({
      status: 'paused',
      paused_reason: 'manual',
    });
    const before = new Date();
    expect((await patch(id, { status: 'active' })).body.data.paused_reason).toBeNull();
    const [row] = (await q('SELECT bounce_window_started_at FROM campaigns WHERE id = $1', [id])) as Array<{
      bounce_window_started_at: Date;
    }>;
    expect(row.bounce_window_started_at.getTime()).toBeGreaterThanOrEqual(before.getTime() - 1000);
    // Paused by the service: the reason shows until a person resumes it.
    await q(`UPDATE campaigns SET status = 'paused', paused_reason = 'bounce_rate' WHERE id = $1`, [id]);
    expect((await api(app, t.token).get(`/campaigns/${id}`)).body.data.paused_reason).toBe('bounce_rate');
    expect((await patch(id, { status: 'archived' })).body.data.paused_reason).toBeNull();
  });

  it('changing start_at re-evaluates deferred enrollments; other changes do not', async () => {
    const id = (
      await createCampaign({
        name: 'Deferred',
        sequence_id: sequenceId,
        inbox_ids: [inboxId],
        schedule: SCHEDULE,
        start_at: '2030-01-01T00:00:00Z',
      })
    ).body.data.id as number;
    expect((await patch(id, { status: 'active' })).status).toBe(200);
    const contactId = await seedContact(q, t.workspaceId, 'deferred@features.test');
    // Deferred by the engine to the old start.
    const enrollmentId = await seedEnrollment(
      q,
      t.workspaceId,
      id,
      contactId,
      new Date('2030-01-01T00:00:00Z'),
    );
    const due = async (): Promise<number> =>
      (
        (await q('SELECT next_step_at FROM enrollments WHERE id = $1', [enrollmentId])) as Array<{
          next_step_at: Date;
        }>
      )[0].next_step_at.getTime();
    expect((await patch(id, { name: 'Renamed' })).status).toBe(200);
    expect(await due()).toBe(Date.parse('2030-01-01T00:00:00Z'));
    expect((await patch(id, { start_at: '2029-06-01T00:00:00Z' })).status).toBe(200);
    // Made due now: the engine checks the new start at its next tick (and defers it there).
    expect(Math.abs((await due()) - Date.now())).toBeLessThan(60_000);
  });

  it('step variants: 1 to 4 extra {subject, body}, shown on the step; none → []', async () => {
    const res = await createSequence([
      step(1, { variants: [{ subject: 'Other {{ first_name }}', body: 'B body' }] }),
      step(2, {
        variants: [
          { subject: null, body: 'B' },
          { body: 'C' },
          { subject: '  ', body: 'D' },
          { subject: 'E', body: 'E' },
        ],
      }),
      step(3),
    ]);
    expect(res.status).toBe(201);
    const steps = res.body.data.steps as Array<{ variants: unknown[] }>;
    expect(steps[0].variants).toEqual([{ subject: 'Other {{ first_name }}', body: 'B body' }]);
    expect(steps[1].variants).toEqual([
      { subject: null, body: 'B' },
      { subject: null, body: 'C' },
      { subject: null, body: 'D' },
      { subject: 'E', body: 'E' },
    ]);
    expect(steps[2].variants).toEqual([]);
    expect((await api(app, t.token).get(`/sequences/${res.body.data.id}`)).body.data).toEqual(res.body.data);
  });

  it('validates every variant like the step itself, naming steps.N.variants.M.<field>', async () => {
    const nested = '{% for a in (1..1000) %}{% for b in (1..1000) %}x{% endfor %}{% endfor %}';
    const five = Array.from({ length: 5 }, () => ({ subject: 's', body: 'b' }));
    const cases: Array<[unknown[], string]> = [
      [[step(1, { variants: [] })], 'steps.0.variants'],
      [[step(1, { variants: five })], 'steps.0.variants'],
      [[step(1, { variants: 'x' })], 'steps.0.variants'],
      [
        [
          step(1, {
            variants: [
              { subject: 'ok', body: 'ok' },
              { subject: null, body: 'b' },
            ],
          }),
        ],
        'steps.0.variants.1.subject',
      ],
      [[step(1), step(2, { variants: [{ subject: null, body: '' }] })], 'steps.1.variants.0.body'],
      [
        [step(1), step(2, { variants: [{ body: 'ok' }, { body: 'Hi {{ first_name' }] })],
        'steps.1.variants.1.body',
      ],
      [
        [step(1), step(2, { variants: [{ subject: '{% if x %}', body: 'ok' }] })],
        'steps.1.variants.0.subject',
      ],
      [[step(1), step(2, { variants: [{ body: 'ok', extra: 1 }] })], 'steps.1.variants.0.extra'],
      // The render budget, per variant (an enrollment is sent one of them).
      [[step(1), step(2, { variants: [{ body: 'ok' }, { body: nested }] })], 'steps.1.variants.1.body'],
    ];
    for (const [steps, field] of cases) expect422(await createSequence(steps), field);
  });

  it('GET /analytics/steps needs a campaign_id and valid days; an unknown campaign has no rows', async () => {
    expect422(await api(app, t.token).get('/analytics/steps'), 'campaign_id');
    expect422(await api(app, t.token).get('/analytics/steps?campaign_id=abc'), 'campaign_id');
    expect422(await api(app, t.token).get('/analytics/steps?campaign_id=1&from=2026-02-30'), 'from');
    expect422(
      await api(app, t.token).get('/analytics/steps?campaign_id=1&from=2026-03-02&to=2026-03-01'),
      'from',
    );
    const res = await api(app, t.token).get('/analytics/steps?campaign_id=999999');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ data: [], next_cursor: null });
  });

  it('step counters: one statement merges several facts of a row, kept per UTC day', async () => {
    const campaignId = (await createCampaign({ name: 'Counters' })).body.data.id as number;
    const at = new Date('2026-11-20T23:59:00Z');
    const next = new Date('2026-11-21T00:01:00Z');
    const bump = (
      variant: string,
      metric: 'sent' | 'bounced',
      when = at,
      subsequenceId: number | null = null,
    ) => ({
      workspaceId: t.workspaceId,
      campaignId,
      subsequenceId,
      stepPosition: 1,
      variant,
      metric,
      by: 1,
      at: when,
    });
    await db.transaction((m) =>
      bumpStepMetrics(m, [
        bump('A', 'sent'),
        bump('A', 'bounced'),
        bump('A', 'sent'),
        bump('B', 'sent'),
        bump('A', 'sent', next),
        // A subsequence's step 1 is a row of its own.
        bump('A', 'sent', at, 7),
      ]),
    );
    await db.transaction((m) => bumpStepMetrics(m, [bump('A', 'sent')]));
    const rows = (await q(
      `SELECT to_char(date, 'YYYY-MM-DD') AS date, subsequence_id::int AS sub, variant, sent, bounced FROM step_metrics WHERE campaign_id = $1 ORDER BY date, subsequence_id, variant`,
      [campaignId],
    )) as unknown[];
    expect(rows).toEqual([
      { date: '2026-11-20', sub: 0, variant: 'A', sent: 3, bounced: 1 },
      { date: '2026-11-20', sub: 0, variant: 'B', sent: 1, bounced: 0 },
      { date: '2026-11-20', sub: 7, variant: 'A', sent: 1, bounced: 0 },
      { date: '2026-11-21', sub: 0, variant: 'A', sent: 1, bounced: 0 },
    ]);
    const res = await api(app, t.token).get(
      `/analytics/steps?campaign_id=${campaignId}&from=2026-11-20&to=2026-11-20`,
    );
    // Every field of a row: what the counters above add up to, the rest zero.
    const zero = {
      replied: 0,
      interested: 0,
      soft_bounced: 0,
      skipped_invalid: 0,
      skipped_risky: 0,
      unsubscribed: 0,
    };
    const row = (subsequence_id: number | null, variant: string, sent: number, bounced: number) => ({
      campaign_id: campaignId,
      subsequence_id,
      step_position: 1,
      variant,
      sent,
      bounced,
      ...zero,
    });
    expect(res.body.data).toEqual([row(null, 'A', 3, 1), row(null, 'B', 1, 0), row(7, 'A', 1, 0)]);
  });
});
