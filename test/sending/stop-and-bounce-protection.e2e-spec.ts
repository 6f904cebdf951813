/**
 * Issue 16, the campaign-wide effects of replies and bounces (docs/campaign-features.md), with the
 * real engine and a real SMTP server: stop on reply for the whole company domain (never for free-mail
 * domains), and bounce protection pausing a campaign whose recent hard-bounce rate is too high.
 */
import request from 'supertest';
import { pauseOnBounceRate } from '../helpers/domain-writes.js';
import { api, createTenant, useApp, app, db, q, all, FAST_SENDING } from '../helpers/app.js';
import { startSmtpSink, type SmtpSink } from '../helpers/mail-servers.js';
import { seedCampaign, seedContact, seedEnrollment } from '../helpers/seed.js';
import { waitFor, waitForCount } from '../helpers/wait.js';

describe('stop on reply by domain and bounce protection (real SMTP)', () => {
  useApp({ env: FAST_SENDING });
  let sink: SmtpSink;
  const mailsTo = (email: string) => sink.received.filter((m) => m.to.includes(email));
  const enrollment = async (id: number) =>
    (
      await all<{ status: string; stop_reason: string | null; stop_note: string | null }>(
        'SELECT status, stop_reason, stop_note FROM enrollments WHERE id = $1',
        [id],
      )
    )[0];

  beforeAll(async () => {
    sink = await startSmtpSink({ rejectRecipient: (a) => (a.startsWith('bounce') ? 550 : undefined) });
  });
  afterAll(async () => {
    await sink.close();
  });

  it('a reply from a@acme.test stops b@acme.test in that campaign only; a reply from gmail.com stops nobody else', async () => {
    const t = await createTenant(app);
    const steps = [
      { subject: 'Hello', body: 'Step one' },
      { subject: null, body: 'Step two, much later', delay_minutes: 600 },
    ];
    const c = await seedCampaign(q, {
      workspaceId: t.workspaceId,
      smtpPort: sink.port,
      steps,
      stopOnReplyScope: 'domain',
    });
    const other = await seedCampaign(q, {
      workspaceId: t.workspaceId,
      smtpPort: sink.port,
      steps,
      stopOnReplyScope: 'domain',
    });
    const emails = [
      'a@acme.test',
      'b@acme.test',
      'carol@ACME.test',
      'c@other.test',
      'x@gmail.com',
      'y@gmail.com',
    ];
    const contact: Record<string, number> = {};
    const inCampaign: Record<string, number> = {};
    for (const email of emails) {
      contact[email] = await seedContact(q, t.workspaceId, email);
      inCampaign[email] = await seedEnrollment(q, t.workspaceId, c.campaignId, contact[email]);
    }
    const bElsewhere = await seedEnrollment(q, t.workspaceId, other.campaignId, contact['b@acme.test']);
    await waitFor(
      async () =>
        emails.every((e) =>
          sink.received.some((m) => m.to.some((to) => to.toLowerCase() === e.toLowerCase())),
        ),
      'step 1 sent to everyone',
    );
    await waitFor(async () => mailsTo('b@acme.test').length === 2, 'b got the other campaign too');
    // Carol is paused (for review): a company stop covers paused enrollments too.
    await q(`UPDATE enrollments SET status = 'paused' WHERE id = $1`, [inCampaign['carol@ACME.test']]);
    await waitFor(async () => {
      const n = await all<{ n: number }>(
        `SELECT count(*)::int AS n FROM messages WHERE workspace_id = $1 AND status = 'sent'`,
        [t.workspaceId],
      );
      return n[0].n === emails.length + 1;
    }, 'all finalised');

    const reply = async (from: string): Promise<void> => {
      const [original] = await all<{ message_id: string }>(
        `SELECT message_id FROM messages WHERE enrollment_id = $1 AND step_position = 1`,
        [inCampaign[from]],
      );
      const raw = [
        `From: Someone <${from.toUpperCase()}>`,
        'To: sender1@x.test',
        'Subject: Re: Hello',
        `Message-ID: <r-${Math.random().toString(36).slice(2)}@reply.test>`,
        `In-Reply-To: ${original.message_id}`,
        '',
        'Please call me.',
        '',
      ].join('\r\n');
      const res = await request(app.getHttpServer())
        .post(`/api/v1/inbound/${c.inboxIds[0]}`)
        .set('Authorization', `Bearer ${c.inboundSecrets[0]}`)
        .send(Buffer.from(raw));
      expect(res.status).toBe(202);
      expect(res.body.data.status).toBe('recorded');
    };

    await reply('a@acme.test');
    expect(await enrollment(inCampaign['a@acme.test'])).toMatchObject({
      status: 'stopped',
      stop_reason: 'replied',
    });
    for (const email of ['b@acme.test', 'carol@ACME.test']) {
      const e = await enrollment(inCampaign[email]);
      expect({ email, ...e }).toMatchObject({ email, status: 'stopped', stop_reason: 'replied' });
      expect(e.stop_note).toContain('a@acme.test');
    }
    // Another campaign and another domain are untouched.
    expect((await enrollment(bElsewhere)).status).toBe('active');
    expect((await enrollment(inCampaign['c@other.test'])).status).toBe('active');

    await reply('x@gmail.com');
    expect(await enrollment(inCampaign['x@gmail.com'])).toMatchObject({
      status: 'stopped',
      stop_reason: 'replied',
    });
    expect((await enrollment(inCampaign['y@gmail.com'])).status).toBe('active');
    expect((await enrollment(inCampaign['c@other.test'])).status).toBe('active');
  });

  it('pauses a campaign at 6 hard bounces among its last 100 sends (5 %): nothing more is sent until it is re-activated, which starts a new window', async () => {
    const t = await createTenant(app);
    const c = await seedCampaign(q, {
      workspaceId: t.workspaceId,
      smtpPort: sink.port,
      steps: [{ subject: 'Hi {{ first_name }}', body: 'One step.' }],
    });
    const enroll = async (email: string, dueAt?: Date): Promise<number> =>
      seedEnrollment(q, t.workspaceId, c.campaignId, await seedContact(q, t.workspaceId, email), dueAt);
    const outcomes = async () =>
      (
        await all<{ sent: number; bounced: number }>(
          `SELECT count(*) FILTER (WHERE status = 'sent')::int AS sent,
             count(*) FILTER (WHERE bounced_at IS NOT NULL)::int AS bounced
           FROM messages WHERE workspace_id = $1 AND direction = 'outbound'`,
          [t.workspaceId],
        )
      )[0];
    const status = async () => (await api(app, t.token).get(`/campaigns/${c.campaignId}`)).body.data;
    // 95 good sends, then 5 hard bounces: 5 of the last 100 sends is 5 %, not over it.
    for (let i = 0; i < 95; i++) await enroll(`good${i}@bp.test`);
    await waitForCount(async () => (await outcomes()).sent, 95, '95 sent');
    for (let i = 0; i < 5; i++) await enroll(`bounce${i}@bp.test`);
    await waitFor(async () => (await outcomes()).bounced === 5, '5 bounced');
    expect(await status()).toMatchObject({ status: 'active', paused_reason: null });
    // The 6th: 6 hard bounces among the last 100 sends.
    await enroll('bounce5@bp.test');
    await waitFor(async () => (await outcomes()).bounced === 6, '6 bounced');
    expect(await status()).toMatchObject({ status: 'paused', paused_reason: 'bounce_rate' });

    // Due now, but the campaign is paused: nothing goes out.
    const more: number[] = [];
    for (let i = 0; i < 20; i++) more.push(await enroll(`more${i}@bp.test`));
    await new Promise((r) => setTimeout(r, 1500));
    expect(sink.received.filter((m) => m.to[0].startsWith('more'))).toHaveLength(0);
    expect(await outcomes()).toEqual({ sent: 95, bounced: 6 });

    // Re-activating clears the reason and starts a new window: the old bounces no longer count.
    const resumed = await api(app, t.token).patch(`/campaigns/${c.campaignId}`).send({ status: 'active' });
    expect(resumed.body.data).toMatchObject({ status: 'active', paused_reason: null });
    await waitForCount(async () => (await outcomes()).sent, 115, 'the 20 sent after re-activation');
    expect((await api(app, t.token).get(`/campaigns/${c.campaignId}`)).body.data.status).toBe('active');
    for (const id of more) expect((await enrollment(id)).status).toBe('completed');
  });

  it('counts only the last 100 sends of the window, judges from 20 sends, and honours the workspace threshold', async () => {
    const t = await createTenant(app);
    const c = await seedCampaign(q, { workspaceId: t.workspaceId, smtpPort: sink.port });
    // No enrollments: the engine leaves this campaign alone; the rule is exercised on rows written here.
    const contactId = await seedContact(q, t.workspaceId, 'rows@bp.test');
    const [thread] = await all<{ id: number }>(
      `INSERT INTO threads (workspace_id, inbox_id, contact_id, campaign_id, subject, message_count)
       VALUES ($1, $2, $3, $4, 'Rows', 0) RETURNING id`,
      [t.workspaceId, c.inboxIds[0], contactId, c.campaignId],
    );
    let n = 0;
    /** `count` sends (oldest first), the first `bounced` of them hard bounced. */
    const sends = async (count: number, bounced: number): Promise<void> => {
      for (let i = 0; i < count; i++) {
        n += 1;
        await q(
          `INSERT INTO messages (workspace_id, thread_id, direction, kind, from_address, to_address, status, sent_at, created_at, bounced_at)
           VALUES ($1, $2, 'outbound', 'email', 's@x.test', 'rows@bp.test', $3, now(), now() + make_interval(secs => $4), $5)`,
          [t.workspaceId, thread.id, i < bounced ? 'failed' : 'sent', n, i < bounced ? new Date() : null],
        );
      }
    };
    const judge = () => db.transaction((m) => pauseOnBounceRate(m, t.workspaceId, c.campaignId));
    await sends(19, 19);
    expect(await judge()).toBe(false); // 19 sends: not judged yet
    await sends(101, 0);
    expect(await judge()).toBe(false); // the 19 bounces are older than the last 100 sends
    await sends(5, 5);
    expect(await judge()).toBe(false); // 5 of the last 100: not over 5 %
    await q(
      `UPDATE workspaces SET config = config || '{"bounce_rate_pause_percent": 4}'::jsonb WHERE id = $1`,
      [t.workspaceId],
    );
    expect(await judge()).toBe(true); // 5 % is over a 4 % threshold
    const [row] = await all<{ status: string; paused_reason: string }>(
      'SELECT status, paused_reason FROM campaigns WHERE id = $1',
      [c.campaignId],
    );
    expect(row).toEqual({ status: 'paused', paused_reason: 'bounce_rate' });
    // Re-activated: a new window, so the same rows count no more; 0 turns protection off.
    await api(app, t.token).patch(`/campaigns/${c.campaignId}`).send({ status: 'active' });
    await q(`UPDATE campaigns SET bounce_window_started_at = now() + interval '1 hour' WHERE id = $1`, [
      c.campaignId,
    ]);
    await sends(30, 30);
    expect(await judge()).toBe(false); // those were created before the window began
    await q(`UPDATE campaigns SET bounce_window_started_at = NULL WHERE id = $1`, [c.campaignId]);
    await q(
      `UPDATE workspaces SET config = config || '{"bounce_rate_pause_percent": 0}'::jsonb WHERE id = $1`,
      [t.workspaceId],
    );
    expect(await judge()).toBe(false);
  });
});
