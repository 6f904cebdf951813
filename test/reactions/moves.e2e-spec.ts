/**
 * Sequences that react, moving (CONTRACT §23), on the real stack: the running app's engine sends
 * step 1 to the SMTP sink, a reply posted to `POST /inbound/{inbox_id}` is recorded and categorised by
 * the `reply-categorize` sweep (rules), and the category's subsequence sends its first step from the
 * same inbox into the same thread. A correction before the subsequence's first send moves the contact
 * (the unsent enrollment ends `cancelled`); a subsequence is entered at most once (no loop).
 */
import { api, app, createTenant, FAST_SENDING, one, q, useApp, type TestTenant } from '../helpers/app.js';
import { startSmtpSink, type SmtpSink } from '../helpers/mail-servers.js';
import {
  FIRST_STEP_NOW,
  seedCampaign,
  sendFirstSteps,
  type FirstSend,
  type SeededCampaign,
} from '../helpers/seed.js';
import { mailsTo as sinkMailsTo, postInThread, publishedStep } from '../helpers/reactions.js';
import { waitFor } from '../helpers/wait.js';

describe('subsequences: moving on a reply category', () => {
  let sink: SmtpSink;
  beforeAll(async () => {
    sink = await startSmtpSink();
  });
  useApp({ env: FAST_SENDING });
  afterAll(async () => {
    await sink.close();
  });

  const addSub = async (t: TestTenant, c: SeededCampaign, category: string, days: number, body: string) => {
    const res = await api(app, t.token)
      .post(`/campaigns/${c.campaignId}/subsequences`)
      .send({
        name: category,
        trigger: { type: 'category', categories: [category] },
        sequence_id: await publishedStep(t, body),
        start_after_days: days,
      });
    expect(res.status).toBe(201);
    return res.body.data.id as number;
  };
  const reply = async (c: SeededCampaign, to: FirstSend, from: string, body: string): Promise<string> =>
    (await postInThread(c, to, { from, body })).messageId;
  const mailsTo = (address: string) => sinkMailsTo(sink, address);

  it('a not_now reply moves the contact: the subsequence’s first step arrives in the same thread from the same inbox', async () => {
    const t = await createTenant(app);
    const c = await seedCampaign(q, {
      workspaceId: t.workspaceId,
      smtpPort: sink.port,
      steps: FIRST_STEP_NOW,
    });
    const subId = await addSub(t, c, 'not_now', 0, 'Understood, {{ first_name }}: a short note for later.');
    const sent = new Map<string, FirstSend>();
    await sendFirstSteps(q, t.workspaceId, c.campaignId, ['moveann'], sent);
    const ann = sent.get('moveann')!;
    const first = await waitFor(async () => mailsTo('moveann@example.com')[0] ?? null, 'step 1 in the sink');
    const replyId = await reply(
      c,
      ann,
      'moveann@example.com',
      // No day named: the move starts now (a named day would start it then: the follow-up test).
      'Not right now, please get back to me later.',
    );

    const second = await waitFor(
      async () => mailsTo('moveann@example.com')[1] ?? null,
      'subsequence step in the sink',
    );
    expect(second.from).toBe(first.from);
    expect(second.parsed.text).toContain('a short note for later');
    expect(second.parsed.subject).toBe(`Re: ${first.parsed.subject}`);
    expect(second.parsed.inReplyTo).toBe(replyId);
    const refs = ([] as string[]).concat(second.parsed.references ?? []);
    expect(refs).toEqual(expect.arrayContaining([ann.messageId, replyId]));

    const moved = await one<{
      id: string;
      parent_enrollment_id: string;
      subsequence_id: string;
      status: string;
      inbox_id: string;
    }>('SELECT * FROM enrollments WHERE contact_id = $1 AND subsequence_id IS NOT NULL', [ann.contactId]);
    expect(Number(moved.subsequence_id)).toBe(subId);
    expect(Number(moved.parent_enrollment_id)).toBe(ann.enrollmentId);
    const parent = await one<{ status: string; stop_reason: string; inbox_id: string }>(
      'SELECT status, stop_reason, inbox_id FROM enrollments WHERE id = $1',
      [ann.enrollmentId],
    );
    expect(parent).toMatchObject({ status: 'stopped', stop_reason: 'replied' });
    expect(moved.inbox_id).toBe(parent.inbox_id);
    const threads = (await q(
      `SELECT DISTINCT thread_id FROM messages WHERE workspace_id = $1 AND to_address = 'moveann@example.com'`,
      [t.workspaceId],
    )) as unknown[];
    expect(threads).toHaveLength(1);

    // The API shows it.
    const listed = await api(app, t.token).get(`/enrollments?subsequence_id=${subId}`);
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(1);
    expect(listed.body.data[0]).toMatchObject({
      subsequence_id: subId,
      parent_enrollment_id: ann.enrollmentId,
    });
    const event = await one<{ data: Record<string, unknown> }>(
      `SELECT data FROM events WHERE workspace_id = $1 AND type = 'enrollment.branched'`,
      [t.workspaceId],
    );
    expect(event.data).toMatchObject({
      enrollment_id: Number(moved.id),
      parent_enrollment_id: ann.enrollmentId,
      contact_id: ann.contactId,
      campaign_id: c.campaignId,
      subsequence_id: subId,
      trigger: 'not_now',
    });

    // Step analytics keep the subsequence's step 1 apart from the campaign's own step 1.
    const stepRows = await waitFor(async () => {
      const res = await api(app, t.token).get(`/analytics/steps?campaign_id=${c.campaignId}`);
      expect(res.status).toBe(200);
      const data = res.body.data as Array<Record<string, unknown>>;
      const sentTotal = data.reduce((sum, r) => sum + Number(r.sent), 0);
      return sentTotal === 2 ? data : null;
    }, 'both sends counted per step');
    expect(stepRows).toEqual([
      expect.objectContaining({ subsequence_id: null, step_position: 1, sent: 1, replied: 1 }),
      expect.objectContaining({ subsequence_id: subId, step_position: 1, sent: 1, replied: 0 }),
    ]);
    const onlySub = await api(app, t.token).get(
      `/analytics/steps?campaign_id=${c.campaignId}&subsequence_id=${subId}`,
    );
    expect(onlySub.status).toBe(200);
    expect(onlySub.body.data).toEqual([stepRows[1]]);
    // A reply to the subsequence's step counts for that step (the last message sent in the thread).
    await reply(c, { ...ann, messageId: second.parsed.messageId! }, 'moveann@example.com', 'Thanks, noted.');
    const afterReply = await waitFor(async () => {
      const res = await api(app, t.token).get(
        `/analytics/steps?campaign_id=${c.campaignId}&subsequence_id=${subId}`,
      );
      return res.body.data[0]?.replied === 1 ? (res.body.data as unknown[]) : null;
    }, 'the reply counted for the subsequence step');
    expect(afterReply).toEqual([expect.objectContaining({ subsequence_id: subId, sent: 1, replied: 1 })]);
  });

  it('a correction before the first send moves the contact; each subsequence is entered once (no loop)', async () => {
    const t = await createTenant(app);
    const c = await seedCampaign(q, {
      workspaceId: t.workspaceId,
      smtpPort: sink.port,
      steps: FIRST_STEP_NOW,
    });
    const later = await addSub(t, c, 'not_now', 30, 'Later, as promised.');
    const hot = await addSub(t, c, 'interested', 0, 'Great: here is the calendar link.');
    const sent = new Map<string, FirstSend>();
    await sendFirstSteps(q, t.workspaceId, c.campaignId, ['corrbob'], sent);
    const bob = sent.get('corrbob')!;
    await reply(c, bob, 'corrbob@example.com', 'Not right now, please get back to me in March.');
    const waiting = await waitFor(
      async () =>
        (await one<{ id: string; next_step_at: Date } | undefined>(
          'SELECT id, next_step_at FROM enrollments WHERE contact_id = $1 AND subsequence_id = $2',
          [bob.contactId, later],
        )) ?? null,
      'moved to the not_now subsequence',
    );
    expect(new Date(waiting.next_step_at).getTime()).toBeGreaterThan(Date.now() + 29 * 86_400_000);
    const thread = await one<{ id: string }>('SELECT id FROM threads WHERE contact_id = $1', [bob.contactId]);

    const corrected = await api(app, t.token).patch(`/threads/${thread.id}`).send({ category: 'interested' });
    expect(corrected.status).toBe(200);
    expect(await one('SELECT status, stop_reason FROM enrollments WHERE id = $1', [waiting.id])).toEqual({
      status: 'stopped',
      stop_reason: 'cancelled',
    });
    const second = await waitFor(
      async () => mailsTo('corrbob@example.com')[1] ?? null,
      'interested step sent',
    );
    expect(second.parsed.text).toContain('calendar link');
    const hotEnrollment = await one<{ id: string; parent_enrollment_id: string; current_step: number }>(
      'SELECT id, parent_enrollment_id, current_step FROM enrollments WHERE contact_id = $1 AND subsequence_id = $2',
      [bob.contactId, hot],
    );
    expect(Number(hotEnrollment.parent_enrollment_id)).toBe(bob.enrollmentId);

    // Back to not_now: already entered (and the interested one has sent): nothing moves.
    await waitFor(
      async () =>
        (
          await one<{ current_step: number }>('SELECT current_step FROM enrollments WHERE id = $1', [
            hotEnrollment.id,
          ])
        ).current_step >= 1 || null,
      'interested step recorded',
    );
    expect(
      (await api(app, t.token).patch(`/threads/${thread.id}`).send({ category: 'not_now' })).status,
    ).toBe(200);
    expect(
      (await api(app, t.token).patch(`/threads/${thread.id}`).send({ category: 'interested' })).status,
    ).toBe(200);
    const all = (await q('SELECT id FROM enrollments WHERE contact_id = $1', [bob.contactId])) as unknown[];
    expect(all).toHaveLength(3);
    await new Promise((r) => setTimeout(r, 500));
    expect(mailsTo('corrbob@example.com')).toHaveLength(2);
  });

  it('completing every step without a reply moves the contact into the `completed` subsequence, once', async () => {
    const t = await createTenant(app);
    const c = await seedCampaign(q, {
      workspaceId: t.workspaceId,
      smtpPort: sink.port,
      steps: [{ subject: 'Only {{ first_name }}', body: 'The only step.' }],
    });
    const res = await api(app, t.token)
      .post(`/campaigns/${c.campaignId}/subsequences`)
      .send({
        name: 'Breakup',
        trigger: { type: 'completed' },
        sequence_id: await publishedStep(t, 'Closing the loop.'),
      });
    expect(res.status).toBe(201);
    const sent = new Map<string, FirstSend>();
    await sendFirstSteps(q, t.workspaceId, c.campaignId, ['donecat'], sent);
    const cat = sent.get('donecat')!;
    const second = await waitFor(
      async () => mailsTo('donecat@example.com')[1] ?? null,
      'completed subsequence sent',
    );
    const first = mailsTo('donecat@example.com')[0];
    expect(second.parsed.text).toContain('Closing the loop.');
    expect(second.from).toBe(first.from);
    expect(second.parsed.subject).toBe(`Re: ${first.parsed.subject}`);
    expect(second.parsed.inReplyTo).toBe(cat.messageId);
    expect(await one('SELECT status FROM enrollments WHERE id = $1', [cat.enrollmentId])).toEqual({
      status: 'completed',
    });
    const sub = await waitFor(
      async () =>
        (await one<{ status: string } | undefined>(
          'SELECT status FROM enrollments WHERE contact_id = $1 AND subsequence_id = $2',
          [cat.contactId, res.body.data.id],
        )) ?? null,
      'subsequence enrollment',
    );
    await waitFor(
      async () =>
        (sub &&
          (
            await one<{ status: string }>(
              'SELECT status FROM enrollments WHERE contact_id = $1 AND subsequence_id = $2',
              [cat.contactId, res.body.data.id],
            )
          ).status === 'completed') ||
        null,
      'subsequence completed',
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(mailsTo('donecat@example.com')).toHaveLength(2);
    expect(
      (await q('SELECT id FROM enrollments WHERE contact_id = $1', [cat.contactId])) as unknown[],
    ).toHaveLength(2);
  });

  it('a not_now reply (corrected) naming a month sets follow_up_at (start time, contact zone) and its subsequence starts then', async () => {
    const t = await createTenant(app);
    const c = await seedCampaign(q, {
      workspaceId: t.workspaceId,
      smtpPort: sink.port,
      steps: FIRST_STEP_NOW,
    });
    const subId = await addSub(t, c, 'not_now', 0, 'As promised, back in touch.');
    const sent = new Map<string, FirstSend>();
    await sendFirstSteps(q, t.workspaceId, c.campaignId, ['fupdan'], sent);
    const dan = sent.get('fupdan')!;
    await q(`UPDATE contacts SET timezone = 'America/New_York' WHERE id = $1`, [dan.contactId]);
    // The date reader of this version reads a bare month; the category comes from a correction.
    await reply(c, dan, 'fupdan@example.com', 'in March');
    const threadId = (
      await one<{ id: string }>('SELECT id FROM threads WHERE contact_id = $1', [dan.contactId])
    ).id;
    expect((await api(app, t.token).patch(`/threads/${threadId}`).send({ category: 'not_now' })).status).toBe(
      200,
    );
    const moved = await waitFor(
      async () =>
        (await one<{ next_step_at: Date } | undefined>(
          'SELECT next_step_at FROM enrollments WHERE contact_id = $1 AND subsequence_id = $2',
          [dan.contactId, subId],
        )) ?? null,
      'moved',
    );
    const thread = await api(app, t.token).get(`/threads/${threadId}`);
    const followUp = new Date(thread.body.data.follow_up_at as string);
    expect(followUp.getUTCMonth()).toBe(2); // March
    expect(followUp.getTime()).toBeGreaterThan(Date.now());
    // The campaign's start time (00:00) in New York (UTC-5 on March 1st, before the switch): 05:00Z
    // on March's first working day.
    expect(followUp.getUTCHours()).toBe(5);
    expect([1, 2, 3]).toContain(followUp.getUTCDate());
    expect(new Date(moved.next_step_at).toISOString()).toBe(followUp.toISOString());
    expect(mailsTo('fupdan@example.com')).toHaveLength(1);
  });

  it('a reply someone else wrote in the thread (a forward, a forged From) moves nobody and sets no follow-up day', async () => {
    const t = await createTenant(app);
    const c = await seedCampaign(q, {
      workspaceId: t.workspaceId,
      smtpPort: sink.port,
      steps: FIRST_STEP_NOW,
    });
    await addSub(t, c, 'not_now', 0, 'Not for you, Mallory.');
    const sent = new Map<string, FirstSend>();
    await sendFirstSteps(q, t.workspaceId, c.campaignId, ['forgedeve'], sent);
    const eve = sent.get('forgedeve')!;
    await waitFor(async () => mailsTo('forgedeve@example.com')[0] ?? null, 'step 1 in the sink');
    const { messageId } = await postInThread(c, eve, {
      from: 'mallory@elsewhere.test',
      body: 'Not right now, please get back to me in March.',
    });
    // The rules decide the reply's category; only then could anything move.
    await waitFor(
      async () =>
        (
          await one<{ category: string | null } | undefined>(
            'SELECT category FROM messages WHERE workspace_id = $1 AND message_id = $2',
            [t.workspaceId, messageId],
          )
        )?.category === 'not_now',
      'the reply categorised not_now',
    );
    expect(
      await q('SELECT id FROM enrollments WHERE contact_id = $1 AND subsequence_id IS NOT NULL', [
        eve.contactId,
      ]),
    ).toHaveLength(0);
    const thread = await one<{ follow_up_at: Date | null }>(
      'SELECT follow_up_at FROM threads WHERE contact_id = $1',
      [eve.contactId],
    );
    expect(thread.follow_up_at).toBeNull();
    expect(
      await q(`SELECT id FROM events WHERE workspace_id = $1 AND type = 'enrollment.branched'`, [
        t.workspaceId,
      ]),
    ).toHaveLength(0);
  });
});
