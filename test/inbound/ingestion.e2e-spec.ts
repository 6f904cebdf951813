/**
 * Mail ingestion against a real IMAP server (Dovecot, started under a temp dir) and through
 * `POST /api/v1/inbound/{inbox_id}`: replies stop the enrollment, auto-replies do not, a DSN 5.1.1
 * suppresses and stops as bounced, 4.x.x and 5.7.x are recorded only, unmatched mail is ignored.
 */
import request from 'supertest';
import { createTenant, useApp, app, q, one, FAST_SENDING, enrollment } from '../helpers/app.js';
import type { TestTenant } from '../helpers/app.js';
import { startDovecot, startSmtpSink, type Dovecot, type SmtpSink } from '../helpers/mail-servers.js';
import { sendFirstSteps, seedInboundCampaign } from '../helpers/seed.js';
import type { SeededCampaign } from '../helpers/seed.js';
import { waitFor } from '../helpers/wait.js';

function dsn(opts: {
  to: string;
  from: string;
  original: string;
  status: string;
  diagnostic: string;
}): string {
  return [
    'From: Mail Delivery System <MAILER-DAEMON@mx.example.com>',
    `To: ${opts.from}`,
    'Subject: Undelivered Mail Returned to Sender',
    `Message-ID: <dsn-${Math.random().toString(36).slice(2)}@mx.example.com>`,
    'Auto-Submitted: auto-replied',
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=delivery-status; boundary="RPT"',
    '',
    '--RPT',
    'Content-Type: text/plain; charset=us-ascii',
    '',
    'This is the mail system. Your message could not be delivered.',
    '',
    '--RPT',
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.example.com',
    '',
    `Final-Recipient: rfc822; ${opts.to}`,
    `Original-Recipient: rfc822;${opts.to}`,
    'Action: failed',
    `Status: ${opts.status}`,
    `Diagnostic-Code: smtp; ${opts.diagnostic}`,
    '',
    '--RPT',
    'Content-Type: text/rfc822-headers',
    '',
    `Message-ID: ${opts.original}`,
    `From: ${opts.from}`,
    `To: ${opts.to}`,
    'Subject: Hello',
    '',
    '--RPT--',
    '',
  ].join('\r\n');
}

function reply(opts: {
  from: string;
  to: string;
  inReplyTo: string;
  subject: string;
  body: string;
  extra?: string[];
}): string {
  return [
    `From: ${opts.from}`,
    `To: ${opts.to}`,
    `Subject: ${opts.subject}`,
    `Message-ID: <r-${Math.random().toString(36).slice(2)}@example.com>`,
    `In-Reply-To: ${opts.inReplyTo}`,
    `References: ${opts.inReplyTo}`,
    ...(opts.extra ?? []),
    'Content-Type: text/plain; charset=utf-8',
    '',
    opts.body,
    '',
  ].join('\r\n');
}

describe('mail ingestion (real IMAP and the inbound route)', () => {
  useApp({ env: { ...FAST_SENDING, IMAP_POLL_SECONDS: '1' } });
  let sink: SmtpSink;
  let dovecot: Dovecot;
  let t: TestTenant;
  let c: SeededCampaign;
  const sentIds = new Map<string, { enrollmentId: number; contactId: number; messageId: string }>();
  const metrics = () =>
    one<Record<string, number>>(
      'SELECT sent, replied, auto_replied, bounced FROM daily_metrics WHERE workspace_id = $1 AND campaign_id = $2',
      [t.workspaceId, c.campaignId],
    );
  const sender = () => `sender1@${'ingest.test'}`;

  beforeAll(async () => {
    dovecot = await startDovecot();
    sink = await startSmtpSink();
    t = await createTenant(app);
    c = await seedInboundCampaign(q, t.workspaceId, sink.port, dovecot, 'ingest.test');
    await sendFirstSteps(
      q,
      t.workspaceId,
      c.campaignId,
      ['reply', 'auto', 'bounce', 'soft', 'policy', 'api'],
      sentIds,
    );
  }, 60_000);

  afterAll(async () => {
    await sink.close();
    await dovecot.stop();
  });

  it('a reply appended to the mailbox stops the enrollment as replied, with its event, metric and stage', async () => {
    const r = sentIds.get('reply')!;
    await dovecot.append(
      reply({
        from: 'Reply Person <reply@example.com>',
        to: sender(),
        inReplyTo: r.messageId,
        subject: 'Re: Hello reply',
        body: 'Yes, interested!',
      }),
    );
    await waitFor(
      async () => (await enrollment(r.enrollmentId)).status === 'stopped',
      'reply stops the enrollment',
    );
    expect(await enrollment(r.enrollmentId)).toEqual({ status: 'stopped', stop_reason: 'replied' });
    const inbound = await one<Record<string, unknown>>(
      `SELECT kind, direction, status, from_address, body, thread_id FROM messages WHERE enrollment_id = $1 AND direction = 'inbound'`,
      [r.enrollmentId],
    );
    expect(inbound).toMatchObject({
      kind: 'reply',
      direction: 'inbound',
      status: 'received',
      from_address: 'reply@example.com',
    });
    expect(String(inbound.body)).toContain('Yes, interested!');
    const thread = await one<{ message_count: number }>('SELECT message_count FROM threads WHERE id = $1', [
      inbound.thread_id,
    ]);
    expect(thread.message_count).toBe(2);
    expect(
      (await one<{ stage: string }>('SELECT stage FROM contacts WHERE id = $1', [r.contactId])).stage,
    ).toBe('replied');
    const ev = await one<{ data: Record<string, unknown> }>(
      `SELECT data FROM events WHERE workspace_id = $1 AND type = 'email.replied'`,
      [t.workspaceId],
    );
    expect(ev.data).toMatchObject({
      enrollment_id: r.enrollmentId,
      campaign_id: c.campaignId,
      contact_id: r.contactId,
    });
    expect((ev.data.message as Record<string, unknown>).kind).toBe('reply');
    expect((await metrics()).replied).toBe(1);
  });

  it('an auto-reply is recorded and counted but does not stop the enrollment', async () => {
    const r = sentIds.get('auto')!;
    await dovecot.append(
      reply({
        from: 'auto@example.com',
        to: sender(),
        inReplyTo: r.messageId,
        subject: 'Automatic reply: Hello auto',
        body: 'I am out of the office until Monday.',
        extra: ['Auto-Submitted: auto-replied', 'X-Autoreply: yes'],
      }),
    );
    await waitFor(
      async () =>
        (
          await one<{ n: number }>(
            `SELECT count(*)::int AS n FROM messages WHERE enrollment_id = $1 AND kind = 'auto_reply'`,
            [r.enrollmentId],
          )
        ).n === 1,
      'auto-reply recorded',
    );
    expect(await enrollment(r.enrollmentId)).toEqual({ status: 'active', stop_reason: null });
    expect((await metrics()).auto_replied).toBe(1);
    expect(
      (await one<{ stage: string }>('SELECT stage FROM contacts WHERE id = $1', [r.contactId])).stage,
    ).toBe('contacted');
  });

  it('a DSN 5.1.1 suppresses the address and stops the enrollment as bounced; 4.x.x and 5.7.x are recorded only; unmatched mail is ignored', async () => {
    const hard = sentIds.get('bounce')!;
    const soft = sentIds.get('soft')!;
    const policy = sentIds.get('policy')!;
    await dovecot.append(
      'From: stranger@example.org\r\nTo: sender1@ingest.test\r\nSubject: Unrelated\r\nMessage-ID: <unrelated@example.org>\r\n\r\nHello there\r\n',
    );
    await dovecot.append(
      dsn({
        to: 'bounce@example.com',
        from: sender(),
        original: hard.messageId,
        status: '5.1.1',
        diagnostic: '550 5.1.1 <bounce@example.com>: Recipient address rejected: User unknown',
      }),
    );
    await dovecot.append(
      dsn({
        to: 'soft@example.com',
        from: sender(),
        original: soft.messageId,
        status: '4.2.2',
        diagnostic: '452 4.2.2 Mailbox full',
      }),
    );
    await dovecot.append(
      dsn({
        to: 'policy@example.com',
        from: sender(),
        original: policy.messageId,
        status: '5.7.1',
        diagnostic: '550 5.7.1 Message rejected by policy',
      }),
    );
    await waitFor(
      async () => (await enrollment(hard.enrollmentId)).status === 'stopped',
      'hard bounce stops the enrollment',
    );
    expect(await enrollment(hard.enrollmentId)).toEqual({ status: 'stopped', stop_reason: 'bounced' });
    const s = await one<{ reason: string }>(
      'SELECT reason FROM suppressions WHERE workspace_id = $1 AND email = $2',
      [t.workspaceId, 'bounce@example.com'],
    );
    expect(s.reason).toBe('bounced');
    expect(
      (
        await one<{ suppression_reason: string }>('SELECT suppression_reason FROM contacts WHERE id = $1', [
          hard.contactId,
        ])
      ).suppression_reason,
    ).toBe('bounced');
    const ev = await one<{ data: Record<string, unknown> }>(
      `SELECT data FROM events WHERE workspace_id = $1 AND type = 'email.bounced' AND data->>'bounce_type' = 'hard'`,
      [t.workspaceId],
    );
    const diagnostic = '550 5.1.1 <bounce@example.com>: Recipient address rejected: User unknown';
    expect(ev.data).toEqual({
      contact_id: hard.contactId,
      email: 'bounce@example.com',
      bounce_type: 'hard',
      status_code: '5.1.1',
      diagnostic,
      bounce: { reason: 'user_unknown', hard: true, status: '5.1.1', smtp_code: 550, diagnostic },
      suppressed: true,
      message_id: expect.any(Number),
      enrollment_id: hard.enrollmentId,
      campaign_id: c.campaignId,
    });
    // The checkpoint passes all five appended mails (unmatched one included).
    await waitFor(
      async () =>
        (
          await one<{ imap_last_uid: number }>('SELECT imap_last_uid FROM inboxes WHERE id = $1', [
            c.inboxIds[0],
          ])
        ).imap_last_uid >= 5,
      'checkpoint past every mail',
    );
    await waitFor(
      async () =>
        (
          await one<{ n: number }>(
            `SELECT count(*)::int AS n FROM messages WHERE workspace_id = $1 AND kind = 'bounce'`,
            [t.workspaceId],
          )
        ).n === 3,
      'three bounce messages',
    );
    expect(await enrollment(soft.enrollmentId)).toEqual({ status: 'active', stop_reason: null });
    expect(await enrollment(policy.enrollmentId)).toEqual({ status: 'active', stop_reason: null });
    const notSuppressed = await one<{ n: number }>(
      `SELECT count(*)::int AS n FROM suppressions WHERE workspace_id = $1 AND email IN ('soft@example.com', 'policy@example.com')`,
      [t.workspaceId],
    );
    expect(notSuppressed.n).toBe(0);
    const inbox = await one<{ status: string; last_error: string }>(
      'SELECT status, last_error FROM inboxes WHERE id = $1',
      [c.inboxIds[0]],
    );
    expect(inbox.status).toBe('active');
    // 5.7.1 "rejected by policy" lies on the sender's side: shown on the inbox, announced, not the contact's.
    expect(inbox.last_error).toMatch(
      /^(policy_violation|rejected|blocked) bounce 5\.7\.1 from example\.com: /,
    );
    const inboxErrors = (await q(`SELECT data FROM events WHERE workspace_id = $1 AND type = 'inbox.error'`, [
      t.workspaceId,
    ])) as Array<{ data: Record<string, unknown> }>;
    expect(inboxErrors.map((e) => e.data)).toEqual([
      { inbox_id: c.inboxIds[0], email: sender(), status: 'active', error: inbox.last_error },
    ]);
    expect((await metrics()).bounced).toBe(1);
    const unrelated = await one<{ n: number }>(
      `SELECT count(*)::int AS n FROM messages WHERE message_id = '<unrelated@example.org>'`,
    );
    expect(unrelated.n).toBe(0);
  });

  it('POST /inbound/{inbox_id} feeds the same pipeline: 202, authenticated by the inbound secret, duplicates recorded once', async () => {
    const r = sentIds.get('api')!;
    const raw = reply({
      from: 'api@example.com',
      to: sender(),
      inReplyTo: r.messageId,
      subject: 'Re: Hello api',
      body: 'Posted by an MTA pipe',
    });
    const http = request(app.getHttpServer());
    const path = `/api/v1/inbound/${c.inboxIds[0]}`;

    const noAuth = await http.post(path).set('Content-Type', 'message/rfc822').send(raw);
    expect(noAuth.status).toBe(401);
    expect(noAuth.body.error.type).toBe('authentication_failed');
    const wrong = await http
      .post(path)
      .set('Authorization', 'Bearer ibs_wrong')
      .set('Content-Type', 'message/rfc822')
      .send(raw);
    expect(wrong.status).toBe(401);
    const foreign = await http
      .post(`/api/v1/inbound/00000000-0000-4000-8000-000000000000`)
      .set('Authorization', `Bearer ${c.inboundSecrets[0]}`)
      .set('Content-Type', 'message/rfc822')
      .send(raw);
    expect(foreign.status).toBe(401);
    const malformed = await http
      .post('/api/v1/inbound/not-a-uuid')
      .set('Authorization', `Bearer ${c.inboundSecrets[0]}`)
      .send(raw);
    expect(malformed.status).toBe(404);

    const ok = await http
      .post(path)
      .set('Authorization', `Bearer ${c.inboundSecrets[0]}`)
      .set('Content-Type', 'message/rfc822')
      .send(raw);
    expect(ok.status).toBe(202);
    expect(ok.body.data).toMatchObject({ status: 'recorded', kind: 'reply', classification: 'reply' });
    expect(await enrollment(r.enrollmentId)).toEqual({ status: 'stopped', stop_reason: 'replied' });

    // The same bytes again (e.g. also polled over IMAP): recorded once. Any content type works.
    const dup = await http
      .post(path)
      .set('Authorization', `Bearer ${c.inboundSecrets[0]}`)
      .set('Content-Type', 'application/octet-stream')
      .send(Buffer.from(raw));
    expect(dup.status).toBe(202);
    expect(dup.body.data).toEqual({
      status: 'duplicate',
      message_id: ok.body.data.message_id,
      read_as: 'reply',
    });
    const count = await one<{ n: number }>(
      `SELECT count(*)::int AS n FROM messages WHERE enrollment_id = $1 AND direction = 'inbound'`,
      [r.enrollmentId],
    );
    expect(count.n).toBe(1);

    const unmatched = await http
      .post(path)
      .set('Authorization', `Bearer ${c.inboundSecrets[0]}`)
      .set('Content-Type', 'text/plain')
      .send('From: x@example.org\r\nSubject: hi\r\n\r\nno references\r\n');
    expect(unmatched.status).toBe(202);
    expect(unmatched.body.data.status).toBe('ignored');

    const empty = await http
      .post(path)
      .set('Authorization', `Bearer ${c.inboundSecrets[0]}`)
      .set('Content-Type', 'message/rfc822');
    expect(empty.status).toBe(400);
    expect(empty.body.error.type).toBe('invalid_request');
  });

  it('the inbound route refuses bodies over 10 MB with 413 in the error envelope', async () => {
    const big = Buffer.alloc(10 * 1024 * 1024 + 10, 'a');
    const res = await request(app.getHttpServer())
      .post(`/api/v1/inbound/${c.inboxIds[0]}`)
      .set('Authorization', `Bearer ${c.inboundSecrets[0]}`)
      .set('Content-Type', 'message/rfc822')
      .send(big);
    expect(res.status).toBe(413);
    expect(res.body.error.type).toBe('payload_too_large');
  });
});
