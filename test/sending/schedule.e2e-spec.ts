/**
 * Schedules take effect at once: enrollments deferred because the window was closed
 * are re-evaluated when the campaign's schedule changes and when the campaign is re-activated, so the
 * next tick sends what the new window allows. Against a real SMTP server (smtp-server) and the real
 * app with its worker timers; the schedule is changed through the API.
 */
import { claimLeaseSeconds } from '../../src/modules/enrollments/reevaluate-deferred.js';
import { api, createTenant, type TestTenant, useApp, app, q, one, FAST_SENDING } from '../helpers/app.js';
import { startSmtpSink, type SmtpSink } from '../helpers/mail-servers.js';
import { ALL_DAYS, seedCampaign, seedContact, seedEnrollment, type SeedStep } from '../helpers/seed.js';
import { waitFor } from '../helpers/wait.js';

const WEEKDAY = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const DAY = 86_400_000;
const OPEN = { timezone: 'UTC', days: ALL_DAYS, start_time: '00:00', end_time: '24:00' };

describe('campaign schedule changes take effect at once (real SMTP)', () => {
  useApp({ env: FAST_SENDING });
  let sink: SmtpSink;
  const mailsTo = (email: string) => sink.received.filter((m) => m.to.includes(email));
  const enrollment = (id: number) =>
    one<{ status: string; current_step: number; next_step_at: Date | null }>(
      'SELECT status, current_step, next_step_at FROM enrollments WHERE id = $1',
      [id],
    );

  /**
   * Only the weekday three days from now (UTC), all day: closed now, and its next opening is 00:00
   * UTC of that day, two to three days ahead (far beyond any claim lease).
   */
  const closed = () => {
    const day = new Date(Date.now() + 3 * DAY);
    const opening = new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate()));
    return {
      schedule: { timezone: 'UTC', days: [WEEKDAY[day.getUTCDay()]], start_time: '00:00', end_time: '24:00' },
      opening,
    };
  };

  /** An active campaign whose window is closed, with one enrollment the engine deferred to the opening. */
  const deferredByWindow = async (
    email: string,
    steps: SeedStep[] = [{ subject: 'Hello {{ first_name }}', body: 'Hi {{ first_name }}.' }],
  ) => {
    const t = await createTenant(app);
    const { schedule, opening } = closed();
    const c = await seedCampaign(q, { workspaceId: t.workspaceId, smtpPort: sink.port, schedule, steps });
    const contactId = await seedContact(q, t.workspaceId, email, { first_name: 'Ada' });
    const enrollmentId = await seedEnrollment(q, t.workspaceId, c.campaignId, contactId);
    await waitFor(
      async () => (await enrollment(enrollmentId)).next_step_at?.getTime() === opening.getTime(),
      'enrollment deferred to the next opening by the engine',
    );
    return { t, c, contactId, enrollmentId, opening };
  };

  const patch = (t: TestTenant, id: number, body: Record<string, unknown>) =>
    api(app, t.token).patch(`/campaigns/${id}`).send(body);
  const ticks = () => new Promise((r) => setTimeout(r, 400)); // several 50 ms ticks

  beforeAll(async () => {
    sink = await startSmtpSink();
  });
  afterAll(async () => {
    await sink.close();
  });

  it('an enrollment deferred by a closed window is sent at the next tick after PATCH widens the schedule', async () => {
    const { t, c, enrollmentId } = await deferredByWindow('widened@example.com');
    expect(mailsTo('widened@example.com')).toHaveLength(0);

    const res = await patch(t, c.campaignId, { schedule: OPEN });
    expect(res.status).toBe(200);
    await waitFor(async () => (await enrollment(enrollmentId)).status === 'completed', 'step sent');
    const mails = mailsTo('widened@example.com');
    expect(mails).toHaveLength(1);
    expect(mails[0].parsed.subject).toBe('Hello Ada');
  });

  it('pause → PATCH schedule → reactivate: nothing is sent while paused, the step goes out once active', async () => {
    const { t, c, enrollmentId } = await deferredByWindow('paused@example.com');
    expect((await patch(t, c.campaignId, { status: 'paused' })).status).toBe(200);
    expect((await patch(t, c.campaignId, { schedule: OPEN })).status).toBe(200);
    await ticks();
    expect(mailsTo('paused@example.com')).toHaveLength(0);
    expect((await enrollment(enrollmentId)).current_step).toBe(0);

    expect((await patch(t, c.campaignId, { status: 'active' })).status).toBe(200);
    await waitFor(async () => (await enrollment(enrollmentId)).status === 'completed', 'step sent');
    expect(mailsTo('paused@example.com')).toHaveLength(1);
  });

  it('re-activation re-evaluates deferrals made under an older schedule even without a schedule in the request', async () => {
    const { t, c, enrollmentId, opening } = await deferredByWindow('reactivated@example.com');
    expect((await patch(t, c.campaignId, { status: 'paused' })).status).toBe(200);
    // The schedule changed by another way than this PATCH (e.g. a later feature or an operator):
    // the deferral still points at the old opening.
    await q('UPDATE campaigns SET schedule = $2 WHERE id = $1', [c.campaignId, JSON.stringify(OPEN)]);
    expect((await enrollment(enrollmentId)).next_step_at?.getTime()).toBe(opening.getTime());

    expect((await patch(t, c.campaignId, { status: 'active' })).status).toBe(200);
    await waitFor(async () => (await enrollment(enrollmentId)).status === 'completed', 'step sent');
    expect(mailsTo('reactivated@example.com')).toHaveLength(1);
  });

  it('never makes a step due before its delay: not-yet-due steps keep their time, deferred ones fall back to previous send + delay', async () => {
    const t = await createTenant(app);
    const c = await seedCampaign(q, {
      workspaceId: t.workspaceId,
      smtpPort: sink.port,
      schedule: OPEN,
      steps: [
        { subject: 'First', body: 'One' },
        { subject: null, body: 'Two', delay_minutes: 600 },
      ],
    });
    const ids: number[] = [];
    for (const email of ['waiting@example.com', 'pushed@example.com']) {
      const contactId = await seedContact(q, t.workspaceId, email);
      ids.push(await seedEnrollment(q, t.workspaceId, c.campaignId, contactId));
    }
    const [waiting, pushed] = ids;
    for (const id of ids) {
      await waitFor(async () => (await enrollment(id)).current_step === 1, 'step 1 sent');
    }
    const dueBySend = async (id: number): Promise<number> => {
      const m = await one<{ sent_at: Date }>(
        'SELECT sent_at FROM messages WHERE enrollment_id = $1 AND step_position = 1',
        [id],
      );
      return m.sent_at.getTime() + 600 * 60_000;
    };
    expect((await enrollment(waiting)).next_step_at?.getTime()).toBe(await dueBySend(waiting));
    // `pushed` was deferred past its due time (as a closed window does); its delay has not elapsed.
    await q(`UPDATE enrollments SET next_step_at = now() + interval '3 days' WHERE id = $1`, [pushed]);

    const res = await patch(t, c.campaignId, {
      schedule: { ...OPEN, timezone: 'Europe/Paris' },
    });
    expect(res.status).toBe(200);
    expect((await enrollment(waiting)).next_step_at?.getTime()).toBe(await dueBySend(waiting));
    expect((await enrollment(pushed)).next_step_at?.getTime()).toBe(await dueBySend(pushed));
    await ticks();
    expect(mailsTo('waiting@example.com')).toHaveLength(1);
    expect(mailsTo('pushed@example.com')).toHaveLength(1);
  });

  it('leaves enrollments a worker may hold (within a claim lease) and steps in flight alone', async () => {
    const { t, c, enrollmentId } = await deferredByWindow('inflight@example.com');
    // As a claim leaves it: due again only when the lease ends.
    const leased = new Date(Date.now() + (claimLeaseSeconds() - 5) * 1000);
    await q('UPDATE enrollments SET next_step_at = $2 WHERE id = $1', [enrollmentId, leased]);
    // Another enrollment whose step is recorded (`sending`) but not finalised, deferred far ahead.
    const other = await seedContact(q, t.workspaceId, 'recorded@example.com');
    const recordedId = await seedEnrollment(
      q,
      t.workspaceId,
      c.campaignId,
      other,
      new Date(Date.now() + 2 * DAY),
    );
    const [thread] = (await q(
      `INSERT INTO threads (workspace_id, inbox_id, contact_id, enrollment_id, campaign_id, subject, message_count)
       VALUES ($1, $2, $3, $4, $5, 'Hello', 0) RETURNING id`,
      [t.workspaceId, c.inboxIds[0], other, recordedId, c.campaignId],
    )) as Array<{ id: number }>;
    await q(
      `INSERT INTO messages (workspace_id, thread_id, enrollment_id, direction, kind, from_address, to_address, subject,
         body, message_id, status, step_position)
       VALUES ($1, $2, $3, 'outbound', 'email', 'sender1@x.test', 'recorded@example.com', 'Hello', 'Hi',
         '<inflight@x.test>', 'sending', 1)`,
      [t.workspaceId, thread.id, recordedId],
    );
    const before = (await enrollment(recordedId)).next_step_at?.getTime();

    expect((await patch(t, c.campaignId, { schedule: OPEN })).status).toBe(200);
    expect((await enrollment(enrollmentId)).next_step_at?.getTime()).toBe(leased.getTime());
    expect((await enrollment(recordedId)).next_step_at?.getTime()).toBe(before);
    await ticks();
    expect(mailsTo('inflight@example.com')).toHaveLength(0);
    expect(mailsTo('recorded@example.com')).toHaveLength(0);
  });

  it('a PATCH that does not change the schedule, or changes other fields, re-evaluates nothing', async () => {
    const { t, c, enrollmentId, opening } = await deferredByWindow('unchanged@example.com');
    const { schedule } = closed();
    // Paused, so that the engine does not touch the enrollment meanwhile.
    expect((await patch(t, c.campaignId, { status: 'paused' })).status).toBe(200);
    expect((await patch(t, c.campaignId, { name: 'Renamed', daily_limit: 50 })).status).toBe(200);
    expect((await patch(t, c.campaignId, { schedule })).status).toBe(200);
    expect((await enrollment(enrollmentId)).next_step_at?.getTime()).toBe(opening.getTime());
    await ticks();
    expect(mailsTo('unchanged@example.com')).toHaveLength(0);
  });
});
