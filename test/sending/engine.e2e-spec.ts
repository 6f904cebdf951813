/**
 * The sending engine end to end, against a real SMTP server (smtp-server) and the real app with its
 * worker timers: rendering, threading, unsubscribe headers and pages, completion, metrics, the
 * schedule window, SMTP hard bounces, and a step recorded but never finalised (a crash) that is
 * never sent again.
 */
import request from 'supertest';
import { MessageRetentionService } from '../../src/modules/threads/message-retention.service.js';
import { createTenant, useApp, app, q, one, FAST_SENDING } from '../helpers/app.js';
import { startSmtpSink, type SmtpSink } from '../helpers/mail-servers.js';
import { ALL_DAYS, seedCampaign, seedContact, seedEnrollment } from '../helpers/seed.js';
import { waitFor } from '../helpers/wait.js';

const WEEKDAY = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

describe('sending engine (real SMTP)', () => {
  useApp({ env: FAST_SENDING });
  let sink: SmtpSink;

  /** Waits until the enrollment's status is `completed`; `what` names the wait in a timeout. */
  const untilCompleted = async (enrollmentId: number, what = 'enrollment completed'): Promise<void> => {
    await waitFor(
      async () =>
        (await one<{ status: string }>('SELECT status FROM enrollments WHERE id = $1', [enrollmentId]))
          .status === 'completed',
      what,
    );
  };

  beforeAll(async () => {
    sink = await startSmtpSink({ rejectRecipient: (a) => (a.startsWith('nobody@') ? 550 : undefined) });
  });
  afterAll(async () => {
    await sink.close();
  });

  const mailsTo = (email: string) => sink.received.filter((m) => m.to.includes(email));
  /** A header exactly as it went over the wire (unfolded). */
  const rawHeader = (raw: Buffer, name: string): string | undefined => {
    const head = raw
      .toString('utf8')
      .split(/\r?\n\r?\n/)[0]
      .replace(/\r?\n[ \t]+/g, ' ');
    return new RegExp(`^${name}:[ \t]*(.*)$`, 'im').exec(head)?.[1]?.trim();
  };

  it('sends a two-step sequence rendered, threaded, with both unsubscribe headers; completes; rows and metrics agree', async () => {
    const t = await createTenant(app);
    const c = await seedCampaign(q, {
      workspaceId: t.workspaceId,
      smtpPort: sink.port,
      steps: [
        {
          subject: 'Hello {{ first_name }} at {{ company }}',
          body: 'Hi {{ first_name }}, how is {{ custom_fields.city }}? -- {{ sender.display_name }}',
        },
        { subject: null, body: 'Following up, {{ first_name }}.' },
      ],
    });
    const contactId = await seedContact(q, t.workspaceId, 'ada@example.com', {
      first_name: 'Ada',
      company: 'Lovelace Ltd',
      custom_fields: { city: 'London' },
    });
    const enrollmentId = await seedEnrollment(q, t.workspaceId, c.campaignId, contactId);

    await untilCompleted(enrollmentId);
    const mails = mailsTo('ada@example.com');
    expect(mails).toHaveLength(2);
    const [first, second] = mails;
    expect(first.parsed.subject).toBe('Hello Ada at Lovelace Ltd');
    expect(first.parsed.text).toContain('Hi Ada, how is London? -- Sam Sender 1');
    expect(first.from).toMatch(/^sender1@acme-/);
    expect(second.parsed.subject).toBe('Re: Hello Ada at Lovelace Ltd');
    expect(second.parsed.text).toContain('Following up, Ada.');
    expect(second.parsed.inReplyTo).toBe(first.parsed.messageId);
    expect(([] as string[]).concat(second.parsed.references ?? [])).toEqual([first.parsed.messageId]);
    for (const m of mails) {
      const lu = String(rawHeader(m.raw, 'List-Unsubscribe'));
      expect(lu).toMatch(/^<http:\/\/service\.test\/u\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+>$/);
      expect(rawHeader(m.raw, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
      // The footer (unsubscribe_footer_enabled defaults to true) carries the same link.
      expect(m.parsed.text).toContain(lu.slice(1, -1));
    }

    const enrollment = await one<Record<string, unknown>>('SELECT * FROM enrollments WHERE id = $1', [
      enrollmentId,
    ]);
    expect(enrollment).toMatchObject({
      status: 'completed',
      current_step: 2,
      next_step_at: null,
      inbox_id: c.inboxIds[0],
    });
    expect(enrollment.completed_at).not.toBeNull();
    const threads = (await q('SELECT * FROM threads WHERE enrollment_id = $1', [enrollmentId])) as Array<
      Record<string, unknown>
    >;
    expect(threads).toHaveLength(1);
    expect(threads[0]).toMatchObject({
      message_count: 2,
      subject: 'Hello Ada at Lovelace Ltd',
      contact_id: contactId,
    });
    const messages = (await q(`SELECT * FROM messages WHERE enrollment_id = $1 ORDER BY step_position`, [
      enrollmentId,
    ])) as Array<Record<string, unknown>>;
    expect(messages.map((m) => [m.step_position, m.status, m.direction, m.thread_id])).toEqual([
      [1, 'sent', 'outbound', threads[0].id],
      [2, 'sent', 'outbound', threads[0].id],
    ]);
    expect(messages.map((m) => m.message_id)).toEqual([first.parsed.messageId, second.parsed.messageId]);
    expect(messages[1].in_reply_to).toBe(first.parsed.messageId);
    const metric = await one<Record<string, number>>(
      'SELECT sent, completed FROM daily_metrics WHERE workspace_id = $1 AND campaign_id = $2',
      [t.workspaceId, c.campaignId],
    );
    expect(metric).toEqual({ sent: 2, completed: 1 });
    const contact = await one<{ stage: string }>('SELECT stage FROM contacts WHERE id = $1', [contactId]);
    expect(contact.stage).toBe('contacted');
    const events = (await q(
      `SELECT type, data FROM events WHERE workspace_id = $1 ORDER BY occurred_at, type`,
      [t.workspaceId],
    )) as Array<{ type: string; data: Record<string, unknown> }>;
    expect(events.filter((e) => e.type === 'message.sent')).toHaveLength(2);
    const sent = events.find((e) => e.type === 'message.sent')!;
    expect(sent.data).toMatchObject({
      enrollment_id: enrollmentId,
      campaign_id: c.campaignId,
      contact_id: contactId,
    });
    expect((sent.data.message as Record<string, unknown>).message_id).toBe(first.parsed.messageId);
    const completed = events.filter((e) => e.type === 'enrollment.completed');
    expect(completed).toHaveLength(1);
    expect(completed[0].data.enrollment as Record<string, unknown>).toMatchObject({
      id: enrollmentId,
      status: 'completed',
    });
    const inbox = await one<{ sent_today: number }>('SELECT sent_today FROM inboxes WHERE id = $1', [
      c.inboxIds[0],
    ]);
    expect(inbox.sent_today).toBe(2);
  });

  it('with unsubscribe_footer_enabled false the body carries no footer; both unsubscribe headers stay', async () => {
    const t = await createTenant(app);
    await q(
      `UPDATE workspaces SET config = config || '{"unsubscribe_footer_enabled": false}'::jsonb WHERE id = $1`,
      [t.workspaceId],
    );
    const c = await seedCampaign(q, {
      workspaceId: t.workspaceId,
      smtpPort: sink.port,
      steps: [{ subject: 'No footer {{ first_name }}', body: 'Just the body, {{ first_name }}.' }],
    });
    const contactId = await seedContact(q, t.workspaceId, 'nofooter@example.com', { first_name: 'Grace' });
    const enrollmentId = await seedEnrollment(q, t.workspaceId, c.campaignId, contactId);
    await untilCompleted(enrollmentId);
    const [mail] = mailsTo('nofooter@example.com');
    const lu = String(rawHeader(mail.raw, 'List-Unsubscribe'));
    expect(lu).toMatch(/^<http:\/\/service\.test\/u\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+>$/);
    expect(rawHeader(mail.raw, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
    expect(String(mail.parsed.text).trim()).toBe('Just the body, Grace.');
  });

  it('one-click unsubscribe suppresses, stops active and paused enrollments, counts once; GET shows a form', async () => {
    const t = await createTenant(app);
    const c = await seedCampaign(q, {
      workspaceId: t.workspaceId,
      smtpPort: sink.port,
      steps: [
        { subject: 'One', body: 'Body one' },
        { subject: null, body: 'Body two', delay_minutes: 600 },
      ],
    });
    const other = await seedCampaign(q, { workspaceId: t.workspaceId, smtpPort: sink.port });
    const contactId = await seedContact(q, t.workspaceId, 'grace@example.com', { first_name: 'Grace' });
    const enrollmentId = await seedEnrollment(q, t.workspaceId, c.campaignId, contactId);
    const pausedId = await seedEnrollment(
      q,
      t.workspaceId,
      other.campaignId,
      contactId,
      new Date(Date.now() + 86_400_000),
    );
    await q(`UPDATE enrollments SET status = 'paused' WHERE id = $1`, [pausedId]);
    await waitFor(
      async () =>
        mailsTo('grace@example.com').length === 1 &&
        (
          await one<{ current_step: number }>('SELECT current_step FROM enrollments WHERE id = $1', [
            enrollmentId,
          ])
        ).current_step === 1,
      'first step sent',
    );
    const link = String(rawHeader(mailsTo('grace@example.com')[0].raw, 'List-Unsubscribe')).slice(1, -1);
    const path = new URL(link).pathname;
    const http = request(app.getHttpServer());

    const page = await http.get(path);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.text).toContain(`action="${path}"`);
    expect(page.text).toContain('gr***@example.com');

    const tampered = await http
      .post(`${path.slice(0, -2)}xx`)
      .type('form')
      .send('List-Unsubscribe=One-Click');
    expect(tampered.status).toBe(404);

    const res = await http.post(path).type('form').send('List-Unsubscribe=One-Click');
    expect(res.status).toBe(200);
    const again = await http.post(path).type('form').send('List-Unsubscribe=One-Click');
    expect(again.status).toBe(200);

    const suppression = await one<{ reason: string }>(
      'SELECT reason FROM suppressions WHERE workspace_id = $1 AND email = $2',
      [t.workspaceId, 'grace@example.com'],
    );
    expect(suppression.reason).toBe('unsubscribed');
    const contact = await one<{ suppression_reason: string }>(
      'SELECT suppression_reason FROM contacts WHERE id = $1',
      [contactId],
    );
    expect(contact.suppression_reason).toBe('unsubscribed');
    for (const id of [enrollmentId, pausedId]) {
      const e = await one<{ status: string; stop_reason: string }>(
        'SELECT status, stop_reason FROM enrollments WHERE id = $1',
        [id],
      );
      expect(e).toEqual({ status: 'stopped', stop_reason: 'unsubscribed' });
    }
    const metric = await one<{ unsubscribed: number }>(
      'SELECT unsubscribed FROM daily_metrics WHERE workspace_id = $1 AND campaign_id = $2',
      [t.workspaceId, c.campaignId],
    );
    expect(metric.unsubscribed).toBe(1);
    // A token signed for another workspace's key material is not accepted.
    expect((await http.get('/u/not-a-token')).status).toBe(404);
  });

  it('sends nothing outside the schedule window and defers the enrollment to the next opening', async () => {
    const t = await createTenant(app);
    const today = WEEKDAY[new Date().getUTCDay()];
    const c = await seedCampaign(q, {
      workspaceId: t.workspaceId,
      smtpPort: sink.port,
      schedule: {
        timezone: 'UTC',
        days: ALL_DAYS.filter((d) => d !== today),
        start_time: '00:00',
        end_time: '24:00',
      },
    });
    const contactId = await seedContact(q, t.workspaceId, 'closed@example.com');
    const enrollmentId = await seedEnrollment(q, t.workspaceId, c.campaignId, contactId);
    // Deferred to the next opening: tomorrow 00:00 UTC (the claim lease in between is ten minutes).
    const tomorrow = new Date();
    tomorrow.setUTCHours(24, 0, 0, 0);
    const row = await waitFor(async () => {
      const e = await one<{ next_step_at: Date; current_step: number }>(
        'SELECT next_step_at, current_step FROM enrollments WHERE id = $1',
        [enrollmentId],
      );
      return e.next_step_at.toISOString() === tomorrow.toISOString() ? e : null;
    }, 'enrollment deferred to the next opening');
    expect(row.current_step).toBe(0);
    expect(mailsTo('closed@example.com')).toHaveLength(0);
    const count = await one<{ n: number }>(
      'SELECT count(*)::int AS n FROM messages WHERE enrollment_id = $1',
      [enrollmentId],
    );
    expect(count.n).toBe(0);
  });

  it('an SMTP 5xx on the recipient is a hard bounce: suppressed, stopped bounced, counted, email.bounced', async () => {
    const t = await createTenant(app);
    const c = await seedCampaign(q, { workspaceId: t.workspaceId, smtpPort: sink.port });
    const contactId = await seedContact(q, t.workspaceId, 'nobody@example.com');
    const enrollmentId = await seedEnrollment(q, t.workspaceId, c.campaignId, contactId);
    await waitFor(
      async () =>
        (await one<{ status: string }>('SELECT status FROM enrollments WHERE id = $1', [enrollmentId]))
          .status === 'stopped',
      'enrollment stopped',
    );
    const e = await one<{ stop_reason: string }>('SELECT stop_reason FROM enrollments WHERE id = $1', [
      enrollmentId,
    ]);
    expect(e.stop_reason).toBe('bounced');
    const s = await one<{ reason: string }>(
      'SELECT reason FROM suppressions WHERE workspace_id = $1 AND email = $2',
      [t.workspaceId, 'nobody@example.com'],
    );
    expect(s.reason).toBe('bounced');
    // The address verdict (CONTRACT §24): invalid, the mailbox unknown, whatever a check said before.
    const v = await one<{ verification_status: string; verification_reasons: string[] }>(
      'SELECT verification_status, verification_reasons FROM contacts WHERE id = $1',
      [contactId],
    );
    expect(v).toEqual({ verification_status: 'invalid', verification_reasons: ['mailbox_unknown'] });
    const m = await one<{ bounced: number; sent: number }>(
      'SELECT bounced, sent FROM daily_metrics WHERE workspace_id = $1 AND campaign_id = $2',
      [t.workspaceId, c.campaignId],
    );
    expect(m).toEqual({ bounced: 1, sent: 0 });
    const ev = await one<{ data: Record<string, unknown> }>(
      `SELECT data FROM events WHERE workspace_id = $1 AND type = 'email.bounced'`,
      [t.workspaceId],
    );
    expect(ev.data).toMatchObject({
      contact_id: contactId,
      email: 'nobody@example.com',
      bounce_type: 'hard',
      status_code: '5.1.1',
      enrollment_id: enrollmentId,
      campaign_id: c.campaignId,
    });
    const msg = await one<{ status: string }>('SELECT status FROM messages WHERE enrollment_id = $1', [
      enrollmentId,
    ]);
    expect(msg.status).toBe('failed');
  });

  it('a step whose SMTP conversation began but was never finalised (crash) is never sent again; resuming continues with the next step', async () => {
    const t = await createTenant(app);
    const c = await seedCampaign(q, { workspaceId: t.workspaceId, smtpPort: sink.port });
    const contactId = await seedContact(q, t.workspaceId, 'crash@example.com', { first_name: 'Cy' });
    // What a worker killed during the SMTP conversation leaves: a `sending` row whose conversation
    // had begun (`smtp_started_at`), the enrollment still at step 0, due again once the lease ran out.
    const enrollmentId = await seedEnrollment(
      q,
      t.workspaceId,
      c.campaignId,
      contactId,
      new Date(Date.now() + 3_600_000),
    );
    const [thread] = (await q(
      `INSERT INTO threads (workspace_id, inbox_id, contact_id, enrollment_id, campaign_id, subject, message_count)
       VALUES ($1, $2, $3, $4, $5, 'Hello Cy', 0) RETURNING id`,
      [t.workspaceId, c.inboxIds[0], contactId, enrollmentId, c.campaignId],
    )) as Array<{ id: number }>;
    const [msg] = (await q(
      `INSERT INTO messages (workspace_id, thread_id, enrollment_id, direction, kind, from_address, to_address, subject, body,
         message_id, status, step_position, created_at, smtp_started_at)
       VALUES ($1, $2, $3, 'outbound', 'email', 'sender1@x.test', 'crash@example.com', 'Hello Cy', 'Hi', '<crashed@x.test>',
         'sending', 1, now() - interval '11 minutes', now() - interval '11 minutes') RETURNING id`,
      [t.workspaceId, thread.id, enrollmentId],
    )) as Array<{ id: number }>;
    await q(
      `UPDATE enrollments SET inbox_id = $2, next_step_at = now() - interval '1 second' WHERE id = $1`,
      [enrollmentId, c.inboxIds[0]],
    );
    const paused = await waitFor(async () => {
      const e = await one<{ status: string; stop_note: string | null }>(
        'SELECT status, stop_note FROM enrollments WHERE id = $1',
        [enrollmentId],
      );
      return e.status === 'paused' ? e : null;
    }, 'enrollment paused for review');
    expect(paused.stop_note).toMatch(/^outcome unknown: step 1 was interrupted/);
    expect(
      (await one<{ status: string }>('SELECT status FROM messages WHERE id = $1', [msg.id])).status,
    ).toBe('failed');
    await new Promise((r) => setTimeout(r, 300)); // several ticks
    expect(mailsTo('crash@example.com')).toHaveLength(0);

    // A person reviewed it and resumes: step 1 is skipped (never resent), step 2 goes out as a follow-up.
    await q(`UPDATE enrollments SET status = 'active', next_step_at = now() WHERE id = $1`, [enrollmentId]);
    await untilCompleted(enrollmentId, 'enrollment completed after resume');
    const mails = mailsTo('crash@example.com');
    expect(mails).toHaveLength(1);
    expect(mails[0].parsed.text).toContain('Following up, Cy.');
    expect(mails[0].parsed.subject).toBe('Re: Hello Cy');
    const rows = (await q(
      'SELECT step_position, status FROM messages WHERE enrollment_id = $1 ORDER BY step_position',
      [enrollmentId],
    )) as Array<{ step_position: number; status: string }>;
    expect(rows).toEqual([
      { step_position: 1, status: 'failed' },
      { step_position: 2, status: 'sent' },
    ]);
  });

  it("the retention purge nulls bodies older than the workspace's message_body_retention_days, nothing else", async () => {
    const short = await createTenant(app);
    const long = await createTenant(app);
    await q(
      `UPDATE workspaces SET config = config || '{"message_body_retention_days": 2}'::jsonb WHERE id = $1`,
      [short.workspaceId],
    );
    const seed = async (workspaceId: string, ageDays: number): Promise<number> => {
      const [thread] = (await q(
        `INSERT INTO threads (workspace_id, inbox_id, contact_id, subject, message_count)
         VALUES ($1, gen_random_uuid(), 1, 'S', 1) RETURNING id`,
        [workspaceId],
      )) as Array<{ id: number }>;
      const [msg] = (await q(
        `INSERT INTO messages (workspace_id, thread_id, direction, kind, from_address, to_address, subject, body,
           message_id, status, sent_at, created_at)
         VALUES ($1, $2, 'outbound', 'email', 'a@x.test', 'b@y.test', 'Subject kept', 'Body text', '<r@x.test>', 'sent',
           now() - make_interval(days => $3), now() - make_interval(days => $3)) RETURNING id`,
        [workspaceId, thread.id, ageDays],
      )) as Array<{ id: number }>;
      return Number(msg.id);
    };
    const oldShort = await seed(short.workspaceId, 3);
    const newShort = await seed(short.workspaceId, 1);
    const oldLong = await seed(long.workspaceId, 3); // default retention: 365 days

    expect(await app.get(MessageRetentionService).purgeExpiredBodies()).toBeGreaterThanOrEqual(1);
    const row = (id: number) =>
      one<{ body: string | null; body_purged_at: Date | null; subject: string; message_id: string }>(
        'SELECT body, body_purged_at, subject, message_id FROM messages WHERE id = $1',
        [id],
      );
    const purged = await row(oldShort);
    expect(purged.body).toBeNull();
    expect(purged.body_purged_at).not.toBeNull();
    expect(purged).toMatchObject({ subject: 'Subject kept', message_id: '<r@x.test>' });
    expect(await row(newShort)).toMatchObject({ body: 'Body text', body_purged_at: null });
    expect(await row(oldLong)).toMatchObject({ body: 'Body text', body_purged_at: null });
    // Re-running finds nothing more to do for these rows.
    await app.get(MessageRetentionService).purgeExpiredBodies();
    expect((await row(oldShort)).body_purged_at?.getTime()).toBe(purged.body_purged_at?.getTime());
  });
});
