import { bumpMetric } from '../helpers/domain-writes.js';
import { dayRange } from '../../src/modules/analytics/analytics.service.js';
import { api, createTenant, useApp, app, db, workspaceKey } from '../helpers/app.js';

interface Row {
  date: string;
  campaign_id: number;
  sent: number;
  replied: number;
  auto_replied: number;
  bounced: number;
  unsubscribed: number;
  enrolled: number;
  completed: number;
}

const DAY = 86_400_000;
const day = (offsetDays: number): string =>
  new Date(Date.now() + offsetDays * DAY).toISOString().slice(0, 10);
const at = (date: string, time = '12:00:00'): Date => new Date(`${date}T${time}Z`);

describe('analytics: GET /analytics/daily', () => {
  useApp();

  const rows = async (token: string, qs = ''): Promise<Row[]> => {
    const res = await api(app, token).get(`/analytics/daily${qs}`);
    expect(res.status).toBe(200);
    return res.body.data as Row[];
  };
  const key = (r: Row) => `${r.date}#${r.campaign_id}`;

  it('shows counters bumped with bumpMetric, per UTC day and campaign', async () => {
    const t = await createTenant(app);
    const other = await createTenant(app);
    const today = day(0);
    await db.transaction(async (m) => {
      await bumpMetric(m, t.workspaceId, 11, 'sent', 1, at(today));
      await bumpMetric(m, t.workspaceId, 11, 'sent', 2, at(today));
      await bumpMetric(m, t.workspaceId, 11, 'replied', 1, at(today));
      await bumpMetric(m, t.workspaceId, 11, 'auto_replied', 1, at(today));
      await bumpMetric(m, t.workspaceId, 11, 'bounced', 1, at(today));
      await bumpMetric(m, t.workspaceId, 11, 'complained', 2, at(today));
      await bumpMetric(m, t.workspaceId, 11, 'unsubscribed', 1, at(today));
      await bumpMetric(m, t.workspaceId, 11, 'enrolled', 4, at(today));
      await bumpMetric(m, t.workspaceId, 11, 'completed', 1, at(today));
      await bumpMetric(m, t.workspaceId, 12, 'sent', 5, at(today));
      await bumpMetric(m, t.workspaceId, 11, 'sent', 7, at(day(-3), '23:59:59'));
      await bumpMetric(m, other.workspaceId, 11, 'sent', 100, at(today));
    });
    // A rolled-back fact leaves no count behind.
    await expect(
      db.transaction(async (m) => {
        await bumpMetric(m, t.workspaceId, 11, 'sent', 1000, at(today));
        throw new Error('rollback');
      }),
    ).rejects.toThrow('rollback');

    const res = await api(app, t.token).get('/analytics/daily');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'links', 'meta', 'next_cursor']);
    const data = res.body.data as Row[];
    expect(data).toHaveLength(3);
    const byKey = new Map(data.map((r) => [key(r), r]));
    expect(byKey.get(`${today}#11`)).toEqual({
      date: today,
      campaign_id: 11,
      sent: 3,
      replied: 1,
      interested: 0,
      auto_replied: 1,
      bounced: 1,
      soft_bounced: 0,
      complained: 2,
      unsubscribed: 1,
      enrolled: 4,
      completed: 1,
    });
    expect(byKey.get(`${today}#12`)).toMatchObject({ sent: 5, replied: 0, enrolled: 0 });
    expect(byKey.get(`${day(-3)}#11`)).toMatchObject({ sent: 7 });
    expect((await rows(other.token)).map((r) => r.sent)).toEqual([100]);
  });

  it('filters by from, to and campaign_id; defaults to the last 30 days', async () => {
    const t = await createTenant(app);
    await db.transaction(async (m) => {
      for (const offset of [0, -1, -5, -29, -30, -45]) {
        await bumpMetric(m, t.workspaceId, 1, 'sent', 1, at(day(offset)));
      }
      await bumpMetric(m, t.workspaceId, 2, 'sent', 1, at(day(-1)));
      await bumpMetric(m, t.workspaceId, 1, 'sent', 1, at(day(2)));
    });
    const dates = (list: Row[]) => list.map((r) => `${r.date}#${r.campaign_id}`).sort();

    // Default window: today and the 29 days before it.
    expect(dates(await rows(t.token))).toEqual(
      [`${day(0)}#1`, `${day(-1)}#1`, `${day(-1)}#2`, `${day(-5)}#1`, `${day(-29)}#1`].sort(),
    );
    expect(dates(await rows(t.token, `?from=${day(-5)}&to=${day(-1)}`))).toEqual(
      [`${day(-1)}#1`, `${day(-1)}#2`, `${day(-5)}#1`].sort(),
    );
    expect(dates(await rows(t.token, `?from=${day(-60)}&to=${day(5)}&campaign_id=1`))).toEqual(
      [0, -1, -5, -29, -30, -45, 2].map((o) => `${day(o)}#1`).sort(),
    );
    expect(dates(await rows(t.token, `?campaign_id=2`))).toEqual([`${day(-1)}#2`]);
    expect(await rows(t.token, `?campaign_id=999`)).toEqual([]);
    // Only `to`: the 30 days ending there. Only `from`: up to today.
    expect(dates(await rows(t.token, `?to=${day(-30)}`))).toEqual([`${day(-45)}#1`, `${day(-30)}#1`].sort());
    expect(dates(await rows(t.token, `?from=${day(-1)}`))).toEqual(
      [`${day(0)}#1`, `${day(-1)}#1`, `${day(-1)}#2`].sort(),
    );
    // Unknown parameters change nothing.
    expect(dates(await rows(t.token, '?workspace_id=x&campaign=2&date=2020-01-01'))).toEqual(
      dates(await rows(t.token)),
    );
  });

  it('answers 422 naming the filter for bad values', async () => {
    const t = await createTenant(app);
    for (const [qs, field] of [
      ['from=yesterday', 'from'],
      ['from=2026-02-30', 'from'],
      ['from=2026-1-5', 'from'],
      ['to=2026-01-01T00:00:00Z', 'to'],
      ['to=0000-01-01', 'to'],
      ['from=2026-03-02&to=2026-03-01', 'from'],
      ['campaign_id=abc', 'campaign_id'],
      ['campaign_id=0', 'campaign_id'],
      ['campaign_id=-3', 'campaign_id'],
      ['campaign_id=1.5', 'campaign_id'],
      ['campaign_id=99999999999999999999', 'campaign_id'],
      ['per_page=1000', 'per_page'],
      ['cursor=bogus', 'cursor'],
    ] as const) {
      const res = await api(app, t.token).get(`/analytics/daily?${qs}`);
      expect({ qs, status: res.status, field: res.body.error?.field }).toEqual({ qs, status: 422, field });
    }
  });

  it('parses campaign_id like every other id filter: 0x10, 1e3, " 1", 1.0 and 007 → 422 (daily and steps)', async () => {
    const t = await createTenant(app);
    for (const bad of ['0x10', '1e3', '%201', '1.0', '1%20', '007', '+1', '']) {
      for (const path of ['/analytics/daily', '/analytics/steps']) {
        const res = await api(app, t.token).get(`${path}?campaign_id=${bad}`);
        expect({ path, bad, status: res.status, field: res.body.error?.field }).toEqual({
          path,
          bad,
          status: 422,
          field: 'campaign_id',
        });
      }
      // The same rule as the other routes' id filters.
      const threads = await api(app, t.token).get(`/threads?campaign_id=${bad}`);
      expect({ bad, status: threads.status }).toEqual({ bad, status: 422 });
    }
    expect((await api(app, t.token).get('/analytics/daily?campaign_id=16')).status).toBe(200);
    expect((await api(app, t.token).get('/analytics/steps?campaign_id=16')).status).toBe(200);
  });

  it('pages with cursors bound to the workspace', async () => {
    const t = await createTenant(app);
    const other = await createTenant(app);
    await db.transaction(async (m) => {
      for (let c = 1; c <= 7; c++) await bumpMetric(m, t.workspaceId, c, 'sent', c, at(day(-1)));
    });
    const seen: number[] = [];
    let res = await api(app, t.token).get('/analytics/daily?per_page=3');
    for (;;) {
      expect(res.status).toBe(200);
      seen.push(...(res.body.data as Row[]).map((r) => r.campaign_id));
      if (!res.body.next_cursor) break;
      res = await api(app, t.token).get(`/analytics/daily?per_page=3&cursor=${res.body.next_cursor}`);
    }
    expect(seen.sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
    const first = await api(app, t.token).get('/analytics/daily?per_page=3');
    const foreign = await api(app, other.token).get(`/analytics/daily?cursor=${first.body.next_cursor}`);
    expect(foreign.status).toBe(422);
    expect(foreign.body.error.field).toBe('cursor');
  });

  it('needs analytics:read', async () => {
    const t = await createTenant(app);
    const noScope = await workspaceKey(app, t.workspaceId, ['contacts:read']);
    const res = await api(app, noScope).get('/analytics/daily');
    expect(res.status).toBe(403);
    expect(res.body.error.type).toBe('forbidden');
    const ok = await workspaceKey(app, t.workspaceId, ['analytics:read']);
    expect((await api(app, ok).get('/analytics/daily')).status).toBe(200);
  });

  it('dayRange defaults: 30 days ending today, or ending at `to`', () => {
    const now = new Date('2026-03-10T23:30:00Z');
    expect(dayRange({}, now)).toEqual({ from: '2026-02-09', to: '2026-03-10' });
    expect(dayRange({ to: '2026-01-30' }, now)).toEqual({ from: '2026-01-01', to: '2026-01-30' });
    expect(dayRange({ from: '2026-03-01' }, now)).toEqual({ from: '2026-03-01', to: '2026-03-10' });
  });
});
