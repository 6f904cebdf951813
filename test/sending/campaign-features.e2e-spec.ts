/**
 * Campaign features of issue 16 with the real engine (worker timers of the booted app) and a real SMTP
 * server: sending in the contact's timezone, the scheduled start, step variants (A/B) with their
 * analytics adding up to the campaign totals. docs/campaign-features.md.
 */
import request from 'supertest';
import { api, createTenant, useApp, app, q, all, FAST_SENDING } from '../helpers/app.js';
import { startSmtpSink, type SmtpSink } from '../helpers/mail-servers.js';
import { ALL_DAYS, seedCampaign, seedContact, seedEnrollment } from '../helpers/seed.js';
import { waitFor, waitForCount } from '../helpers/wait.js';

/** Minute of the day of `at` on a wall clock in `timeZone` (Intl, independent of the engine's code). */
const wallMinute = (timeZone: string, at: Date): number => {
  const [h, m] = at
    .toLocaleTimeString('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
    .split(':')
    .map(Number);
  return h * 60 + m;
};
const hhmm = (minute: number): string =>
  minute === 1440
    ? '24:00'
    : `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A one-hour window (all days) open now on `timeZone`'s clock with at least 3 minutes left (waits for
 * the local midnight in the rare case the clock is in the last minutes of its day).
 */
async function hourOpenNowIn(timeZone: string): Promise<{ start: number; end: number }> {
  let now = wallMinute(timeZone, new Date());
  if (now > 1440 - 3) {
    await sleep((1440 - now + 0.2) * 60_000);
    now = wallMinute(timeZone, new Date());
  }
  const start = Math.min(Math.max(now - 30, 0), 1380);
  return { start, end: start + 60 };
}

describe('campaign features with the real engine (real SMTP)', () => {
  useApp({ env: FAST_SENDING });
  let sink: SmtpSink;
  const mailsTo = (email: string) => sink.received.filter((m) => m.to.includes(email));

  beforeAll(async () => {
    sink = await startSmtpSink({ rejectRecipient: (a) => (a.startsWith('bounce') ? 550 : undefined) });
  });
  afterAll(async () => {
    await sink.close();
  });

  it("sends each contact its step inside the window read on its own clock (Tokyo, Los Angeles; others fall back to the schedule's zone)", async () => {
    const t = await createTenant(app);
    // The window is chosen relative to now: open on Tokyo's clock now, so closed in Los Angeles (16–17
    // hours behind) and in UTC (the schedule's zone, 9 hours behind Tokyo).
    const tokyoWindow = await hourOpenNowIn('Asia/Tokyo');
    const schedule = {
      timezone: 'UTC',
      days: ALL_DAYS,
      start_time: hhmm(tokyoWindow.start),
      end_time: hhmm(tokyoWindow.end),
    };
    const c = await seedCampaign(q, {
      workspaceId: t.workspaceId,
      smtpPort: sink.port,
      schedule,
      sendInContactTimezone: true,
      steps: [{ subject: 'Hello {{ first_name }}', body: 'Local time for {{ first_name }}.' }],
    });
    const contacts = {
      tokyo: await seedContact(q, t.workspaceId, 'kenji@tz.test', {
        first_name: 'Kenji',
        timezone: 'Asia/Tokyo',
      }),
      la: await seedContact(q, t.workspaceId, 'lucy@tz.test', {
        first_name: 'Lucy',
        timezone: 'America/Los_Angeles',
      }),
      none: await seedContact(q, t.workspaceId, 'uma@tz.test', { first_name: 'Uma' }),
    };
    const enrollment = {
      tokyo: await seedEnrollment(q, t.workspaceId, c.campaignId, contacts.tokyo),
      la: await seedEnrollment(q, t.workspaceId, c.campaignId, contacts.la),
      none: await seedEnrollment(q, t.workspaceId, c.campaignId, contacts.none),
    };
    const state = async (id: number) =>
      (
        await all<{ status: string; next_step_at: Date | null }>(
          'SELECT status, next_step_at FROM enrollments WHERE id = $1',
          [id],
        )
      )[0];

    await waitFor(async () => (await state(enrollment.tokyo)).status === 'completed', 'Tokyo contact sent');
    // The others were deferred to the first minute their own clock (or UTC) is inside the window.
    await waitFor(
      async () => (await state(enrollment.la)).next_step_at!.getTime() > Date.now() + 3600_000,
      'LA deferred',
    );
    await waitFor(
      async () => (await state(enrollment.none)).next_step_at!.getTime() > Date.now() + 3600_000,
      'UTC deferred',
    );
    for (const [id, zone] of [
      [enrollment.la, 'America/Los_Angeles'],
      [enrollment.none, 'UTC'],
    ] as const) {
      const at = (await state(id)).next_step_at!;
      expect({ zone, local: wallMinute(zone, at) }).toEqual({ zone, local: tokyoWindow.start });
      expect(wallMinute(zone, new Date(at.getTime() - 60_000))).not.toBe(tokyoWindow.start);
      expect(at.getTime() - Date.now()).toBeLessThan(24 * 3600_000);
    }
    expect(mailsTo('lucy@tz.test')).toHaveLength(0);
    expect(mailsTo('uma@tz.test')).toHaveLength(0);

    // Now open the window on Los Angeles' clock (the schedule change re-evaluates the deferrals): Lucy
    // gets her step, Uma (UTC, 7–8 hours ahead of Los Angeles) still waits.
    const laWindow = await hourOpenNowIn('America/Los_Angeles');
    const laSchedule = { ...schedule, start_time: hhmm(laWindow.start), end_time: hhmm(laWindow.end) };
    const patched = await api(app, t.token)
      .patch(`/campaigns/${c.campaignId}`)
      .send({ schedule: laSchedule });
    expect(patched.status).toBe(200);
    await waitFor(async () => (await state(enrollment.la)).status === 'completed', 'LA contact sent');
    await waitFor(
      async () => (await state(enrollment.none)).next_step_at!.getTime() > Date.now() + 3600_000,
      'UTC deferred again',
    );
    expect(wallMinute('UTC', (await state(enrollment.none)).next_step_at!)).toBe(laWindow.start);

    const sent = await all<{ to_address: string; sent_at: Date }>(
      `SELECT to_address, sent_at FROM messages WHERE workspace_id = $1 AND status = 'sent' ORDER BY sent_at`,
      [t.workspaceId],
    );
    expect(sent.map((m) => m.to_address)).toEqual(['kenji@tz.test', 'lucy@tz.test']);
    const inside = (zone: string, at: Date, w: { start: number; end: number }) =>
      wallMinute(zone, at) >= w.start && wallMinute(zone, at) < w.end;
    expect(inside('Asia/Tokyo', sent[0].sent_at, tokyoWindow)).toBe(true);
    expect(inside('America/Los_Angeles', sent[1].sent_at, laWindow)).toBe(true);
    expect(mailsTo('kenji@tz.test')).toHaveLength(1);
    expect(mailsTo('lucy@tz.test')).toHaveLength(1);
    expect(mailsTo('uma@tz.test')).toHaveLength(0);
    // Time for the rare wait past a local midnight in hourOpenNowIn (at most 3 minutes, twice).
  }, 480_000);

  it('sends nothing of a campaign before its start_at, even while active, and sends at start', async () => {
    const t = await createTenant(app);
    const startAt = new Date(Date.now() + 2500);
    const c = await seedCampaign(q, {
      workspaceId: t.workspaceId,
      smtpPort: sink.port,
      startAt,
      steps: [{ subject: 'Scheduled', body: 'Starts later.' }],
    });
    const contactId = await seedContact(q, t.workspaceId, 'later@start.test');
    const enrollmentId = await seedEnrollment(q, t.workspaceId, c.campaignId, contactId);
    // The claim defers it to the start itself: one claim, then out of the due index until then.
    await waitFor(
      async () =>
        (
          await all<{ next_step_at: Date }>('SELECT next_step_at FROM enrollments WHERE id = $1', [
            enrollmentId,
          ])
        )[0].next_step_at.getTime() === startAt.getTime(),
      'deferred to start_at',
    );
    expect(mailsTo('later@start.test')).toHaveLength(0);
    await waitFor(
      async () =>
        (await all<{ status: string }>('SELECT status FROM enrollments WHERE id = $1', [enrollmentId]))[0]
          .status === 'completed',
      'sent at start',
      15_000,
    );
    expect(mailsTo('later@start.test')).toHaveLength(1);
    const [m] = await all<{ sent_at: Date }>(`SELECT sent_at FROM messages WHERE enrollment_id = $1`, [
      enrollmentId,
    ]);
    expect(m.sent_at.getTime()).toBeGreaterThanOrEqual(startAt.getTime());
  });

  it('sends each enrollment one variant per step, evenly; replies and unsubscribes count for the last variant sent; steps add up to the campaign', async () => {
    const t = await createTenant(app);
    const c = await seedCampaign(q, {
      workspaceId: t.workspaceId,
      smtpPort: sink.port,
      steps: [
        {
          subject: 'A: hello {{ first_name }}',
          body: 'Variant A of step 1',
          variants: [{ subject: 'B: hi {{ first_name }}', body: 'Variant B of step 1' }],
        },
        {
          subject: null,
          body: 'Variant A of step 2',
          variants: [
            { subject: null, body: 'Variant B of step 2' },
            { subject: 'C: a new subject', body: 'Variant C of step 2' },
          ],
        },
      ],
    });
    const emails = Array.from({ length: 12 }, (_, i) =>
      i === 11 ? 'bounce-v@variants.test' : `v${i}@variants.test`,
    );
    const ids: number[] = [];
    for (const email of emails) {
      const contactId = await seedContact(q, t.workspaceId, email, { first_name: email.slice(0, 3) });
      ids.push(await seedEnrollment(q, t.workspaceId, c.campaignId, contactId));
    }
    await waitForCount(
      async () =>
        (
          await all<{ n: number }>(
            `SELECT count(*)::int AS n FROM enrollments WHERE campaign_id = $1 AND status IN ('completed', 'stopped')`,
            [c.campaignId],
          )
        )[0].n,
      ids.length,
      'all enrollments done',
    ).catch(async (err: Error) => {
      // Which one is left, and what its messages say: a retry after an SMTP failure, a lost claim, a hold.
      const left = await all(
        `SELECT e.id, e.status, e.current_step, e.next_step_at, e.stop_reason,
           (SELECT json_agg(json_build_object('step', m.step_position, 'status', m.status, 'error', m.error, 'smtp_started_at', m.smtp_started_at, 'created_at', m.created_at))
              FROM messages m WHERE m.enrollment_id = e.id) AS messages
         FROM enrollments e WHERE e.campaign_id = $1 AND e.status NOT IN ('completed', 'stopped')`,
        [c.campaignId],
      );
      throw new Error(`${err.message}\nleft: ${JSON.stringify(left)}`);
    });
    const letter = (id: number, position: number, n: number) => 'ABC'[(id + position) % n];
    const messages = await all<{
      enrollment_id: number;
      step_position: number;
      variant: string;
      subject: string;
      body: string;
      status: string;
      message_id: string;
      thread_id: number;
    }>(
      `SELECT enrollment_id, step_position, variant, subject, body, status, message_id, thread_id FROM messages
       WHERE workspace_id = $1 AND direction = 'outbound' ORDER BY enrollment_id, step_position`,
      [t.workspaceId],
    );
    expect(messages).toHaveLength(2 * 11 + 1);
    for (const m of messages) {
      const expected = letter(Number(m.enrollment_id), m.step_position, m.step_position === 1 ? 2 : 3);
      expect({ id: m.enrollment_id, step: m.step_position, variant: m.variant }).toEqual({
        id: m.enrollment_id,
        step: m.step_position,
        variant: expected,
      });
      expect(m.body).toContain(`Variant ${expected} of step ${m.step_position}`);
      if (m.step_position === 2) {
        const first = messages.find((x) => x.enrollment_id === m.enrollment_id && x.step_position === 1)!;
        // A follow-up without a subject replies to the subject step 1 actually sent (its own variant's).
        expect(m.subject).toBe(expected === 'C' ? 'C: a new subject' : `Re: ${first.subject}`);
        expect(first.subject.startsWith(`${first.variant}: `)).toBe(true);
      }
    }
    // 11 consecutive enrollment ids: 6/5 over two variants, 4/4/3 over three.
    const count = (step: number, v: string) =>
      messages.filter((m) => m.step_position === step && m.variant === v && m.status === 'sent').length;
    const step1 = [count(1, 'A'), count(1, 'B')];
    expect(step1.reduce((a, b) => a + b)).toBe(11);
    expect(Math.abs(step1[0] - step1[1])).toBeLessThanOrEqual(1);

    // The message view and the message.sent event carry the variant.
    const one = messages.find((m) => m.step_position === 2 && m.status === 'sent')!;
    const view = await api(app, t.token).get(`/threads/${one.thread_id}/messages`);
    expect(view.body.data.map((m: { variant: string }) => m.variant).sort()).toEqual(
      messages
        .filter((m) => m.thread_id === one.thread_id)
        .map((m) => m.variant)
        .sort(),
    );
    const events = await all<{ data: { variant: string; message: { variant: string; message_id: string } } }>(
      `SELECT data FROM events WHERE workspace_id = $1 AND type = 'message.sent'`,
      [t.workspaceId],
    );
    expect(events).toHaveLength(22);
    for (const e of events) {
      const m = messages.find((x) => x.message_id === e.data.message.message_id)!;
      expect([e.data.variant, e.data.message.variant]).toEqual([m.variant, m.variant]);
    }

    // A reply to step 1's message counts for the last variant sent in the thread (step 2's).
    const replier = messages.find((m) => m.enrollment_id === ids[0] && m.step_position === 1)!;
    const raw = [
      `From: ${emails[0]}`,
      `To: sender1@x.test`,
      'Subject: Re: hello',
      `Message-ID: <reply-${Date.now()}@variants.test>`,
      `In-Reply-To: ${replier.message_id}`,
      '',
      'Interested!',
      '',
    ].join('\r\n');
    const inbound = await request(app.getHttpServer())
      .post(`/api/v1/inbound/${c.inboxIds[0]}`)
      .set('Authorization', `Bearer ${c.inboundSecrets[0]}`)
      .set('Content-Type', 'message/rfc822')
      .send(raw);
    expect(inbound.status).toBe(202);
    // An unsubscribe from the second contact's step-1 mail also counts for its step-2 variant.
    const mail = mailsTo(emails[1])[0];
    const token = /\/u\/([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)>/.exec(mail.raw.toString('utf8'))![1];
    const unsub = await request(app.getHttpServer())
      .post(`/u/${token}`)
      .type('form')
      .send('List-Unsubscribe=One-Click');
    expect(unsub.status).toBe(200);

    const steps = await api(app, t.token).get(`/analytics/steps?campaign_id=${c.campaignId}`);
    expect(steps.status).toBe(200);
    const rows = steps.body.data as Array<Record<string, number | string | null>>;
    const row = (position: number, variant: string) =>
      rows.find((r) => r.step_position === position && r.variant === variant);
    const last = (id: number) =>
      messages.find((m) => m.enrollment_id === id && m.step_position === 2)!.variant;
    expect(row(2, last(ids[0]))!.replied).toBe(1);
    expect(row(2, last(ids[1]))!.unsubscribed).toBe(1);
    const bounced = messages.find((m) => m.enrollment_id === ids[11])!;
    expect(row(1, bounced.variant)!.bounced).toBe(1);
    for (const r of rows) {
      expect(r.campaign_id).toBe(c.campaignId);
      const sentHere = messages.filter(
        (m) => m.step_position === r.step_position && m.variant === r.variant && m.status === 'sent',
      );
      expect(r.sent).toBe(sentHere.length);
    }
    // Per step and variant, the counters add up to the campaign's daily totals.
    const daily = (await api(app, t.token).get(`/analytics/daily?campaign_id=${c.campaignId}`)).body
      .data as Array<Record<string, number>>;
    for (const metric of ['sent', 'replied', 'bounced', 'unsubscribed']) {
      const total = daily.reduce((a, d) => a + d[metric], 0);
      expect({ metric, sum: rows.reduce((a, r) => a + Number(r[metric]), 0) }).toEqual({
        metric,
        sum: total,
      });
    }
    expect(daily.reduce((a, d) => a + d.sent, 0)).toBe(22);
  });
});
