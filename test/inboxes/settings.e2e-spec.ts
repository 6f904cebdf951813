/**
 * `PATCH /inboxes/{id}` (CONTRACT §19): display name, daily limit, pause/resume, ramp-up; and the
 * send engine keeping within the effective limit, against a real SMTP server.
 */
import { randomUUID } from 'node:crypto';
import { api, createTenant, useApp, app, q, one, FAST_SENDING, workspaceKey } from '../helpers/app.js';
import { startSmtpSink, type SmtpSink } from '../helpers/mail-servers.js';
import { seedCampaign, seedContact, seedEnrollment } from '../helpers/seed.js';
import { waitFor } from '../helpers/wait.js';

describe('inbox settings and ramp-up', () => {
  useApp({ env: FAST_SENDING });
  let sink: SmtpSink;

  beforeAll(async () => {
    sink = await startSmtpSink();
  });
  afterAll(async () => {
    await sink.close();
  });

  it('changes display name, daily limit and status; sets, keeps and removes a ramp-up; answers 409 and 422', async () => {
    const t = await createTenant(app);
    const { inboxIds } = await seedCampaign(q, {
      workspaceId: t.workspaceId,
      smtpPort: sink.port,
      inboxDailyLimit: 40,
    });
    const id = inboxIds[0];
    const res = await api(app, t.token)
      .patch(`/inboxes/${id}`)
      .send({
        display_name: 'Ada at Acme',
        daily_limit: 30,
        status: 'paused',
        ramp_up: { start: 5, increase_per_day: 5 },
      });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id,
      display_name: 'Ada at Acme',
      daily_limit: 30,
      status: 'paused',
      auth: 'password',
      provider: 'smtp',
      ramp_up: { start: 5, increase_per_day: 5, started_at: expect.any(String) },
      effective_daily_limit: 5,
      last_error: null,
    });
    const startedAt = res.body.data.ramp_up.started_at as string;
    // The same ramp again keeps its start; resuming works.
    const again = await api(app, t.token)
      .patch(`/inboxes/${id}`)
      .send({ status: 'active', ramp_up: { start: 5, increase_per_day: 5 } });
    expect(again.body.data).toMatchObject({ status: 'active', ramp_up: { started_at: startedAt } });
    expect((await api(app, t.token).get(`/inboxes/${id}`)).body.data).toEqual(again.body.data);

    // A ramp begun two days ago: 5 + 2×5 = 15, under the daily limit of 30.
    await q(`UPDATE inboxes SET ramp_started_at = now() - interval '2 days 1 minute' WHERE id = $1`, [id]);
    expect((await api(app, t.token).get(`/inboxes/${id}`)).body.data.effective_daily_limit).toBe(15);
    await q(`UPDATE inboxes SET ramp_started_at = now() - interval '30 days' WHERE id = $1`, [id]);
    expect((await api(app, t.token).get(`/inboxes/${id}`)).body.data.effective_daily_limit).toBe(30);

    const removed = await api(app, t.token)
      .patch(`/inboxes/${id}`)
      .send({ ramp_up: null, display_name: null });
    expect(removed.body.data).toMatchObject({ ramp_up: null, display_name: null, effective_daily_limit: 30 });

    for (const [body, field] of [
      [{ status: 'reauth_required' }, 'status'],
      [{ status: 'error' }, 'status'],
      [{ daily_limit: 0 }, 'daily_limit'],
      [{ daily_limit: null }, 'daily_limit'],
      [{ ramp_up: { start: 0, increase_per_day: 5 } }, 'ramp_up.start'],
      [{ ramp_up: { start: 5 } }, 'ramp_up.increase_per_day'],
      [{ email: 'x@y.test' }, 'email'],
      [{ display_name: 'a\u0000b' }, 'display_name'],
    ] as const) {
      const r = await api(app, t.token).patch(`/inboxes/${id}`).send(body);
      expect({ body, status: r.status, type: r.body.error?.type, field: r.body.error?.field }).toEqual({
        body,
        status: 422,
        type: 'validation_failed',
        field,
      });
    }

    await q(`UPDATE inboxes SET status = 'reauth_required' WHERE id = $1`, [id]);
    const resumed = await api(app, t.token).patch(`/inboxes/${id}`).send({ status: 'active' });
    expect(resumed.status).toBe(409);
    expect(resumed.body.error.type).toBe('conflict');

    // Another tenant's inbox, a missing one: 404. A key without inboxes:write: 403.
    const other = await createTenant(app);
    expect((await api(app, other.token).patch(`/inboxes/${id}`).send({ daily_limit: 5 })).status).toBe(404);
    expect((await api(app, t.token).patch(`/inboxes/${randomUUID()}`).send({ daily_limit: 5 })).status).toBe(
      404,
    );
    const readOnly = await workspaceKey(app, t.workspaceId, ['inboxes:read']);
    expect((await api(app, readOnly).patch(`/inboxes/${id}`).send({ daily_limit: 5 })).status).toBe(403);
    expect(
      (await one<{ daily_limit: number }>('SELECT daily_limit FROM inboxes WHERE id = $1', [id])).daily_limit,
    ).toBe(30);
  });

  it('a ramped inbox (start 5, +5 a day) sends 5 on its first day and no more; the next day 10', async () => {
    const t = await createTenant(app);
    const c = await seedCampaign(q, {
      workspaceId: t.workspaceId,
      smtpPort: sink.port,
      inboxDailyLimit: 1000,
      steps: [{ subject: 'Hi', body: 'One step.' }],
    });
    const id = c.inboxIds[0];
    const patched = await api(app, t.token)
      .patch(`/inboxes/${id}`)
      .send({ ramp_up: { start: 5, increase_per_day: 5 } });
    expect(patched.body.data.effective_daily_limit).toBe(5);
    const domain = `ramp-${randomUUID().slice(0, 8)}.test`;
    const enrollments: number[] = [];
    for (let i = 0; i < 12; i++) {
      const contact = await seedContact(q, t.workspaceId, `lead${i}@${domain}`);
      enrollments.push(await seedEnrollment(q, t.workspaceId, c.campaignId, contact));
    }
    const sentTo = () => sink.received.filter((m) => m.to.some((a) => a.endsWith(`@${domain}`))).length;
    await waitFor(async () => sentTo() === 5, '5 sends');
    // Several more ticks: nothing else leaves, the rest wait for the next UTC day.
    await new Promise((r) => setTimeout(r, 1500));
    expect(sentTo()).toBe(5);
    const shown = (await api(app, t.token).get(`/inboxes/${id}`)).body.data;
    expect(shown).toMatchObject({ sent_today: 5, effective_daily_limit: 5 });
    const waiting = await one<{ n: number }>(
      `SELECT count(*)::int AS n FROM enrollments WHERE id = ANY($1::bigint[]) AND status = 'active' AND next_step_at > now()`,
      [enrollments],
    );
    expect(waiting.n).toBe(7);

    // A day later the limit is 10: five more (today's count of 5 stands), then nothing.
    await q(`UPDATE inboxes SET ramp_started_at = ramp_started_at - interval '1 day' WHERE id = $1`, [id]);
    await q(
      `UPDATE enrollments SET next_step_at = now() WHERE id = ANY($1::bigint[]) AND status = 'active'`,
      [enrollments],
    );
    await waitFor(async () => sentTo() === 10, '10 sends');
    await new Promise((r) => setTimeout(r, 1500));
    expect(sentTo()).toBe(10);
  });
});
