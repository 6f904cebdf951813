/**
 * Reading real mail through the real inbound route (CONTRACT §18, docs/mail-reading.md):
 * - every sample of the shared corpus (sisimai's real reports, complaints and auto-replies) posted to
 *   `POST /inbound/{inbox_id}` as the report of a message the service recorded as sent (its quoted
 *   Message-ID replaced by ours; a report that quotes none is matched by its failed recipient), judged
 *   against sisimai's verdicts;
 * - the rules: matching by recipient, one bounce per sent message, three recipient-side soft bounces
 *   in 30 days suppress and two do not, a sender-side bounce leaves the contact sendable and fires
 *   `inbox.error`, `not-spam` never suppresses, company-wide stop by the recipient's domain.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { simpleParser } from 'mailparser';
import request from 'supertest';
import { DELIBERATE_HARD_SOFT } from '../../src/modules/mail-reading/fixtures/sisimai-disagreements.js';
import { SISIMAI_REASONS } from '../../src/modules/mail-reading/fixtures/sisimai-reasons.js';
import { readMail } from '../../src/modules/mail-reading/read-mail.js';
import { createTenant, type TestTenant, useApp, app, q, one } from '../helpers/app.js';
import { seedCampaign, seedContact, type SeededCampaign } from '../helpers/seed.js';

const CORPUS = resolve(process.cwd(), 'test', 'fixtures', 'mail');
const SAMPLES = join(CORPUS, 'sisimai');

const REASON_NAMES: Readonly<Record<string, string>> = SISIMAI_REASONS;

interface Expected {
  file: string;
  reason: string;
  hard: boolean;
  feedbackType: string;
}

/** sisimai's verdict on each file's first recipient. */
function expectations(): Expected[] {
  const lines = readFileSync(join(CORPUS, 'sisimai-expected.tsv'), 'utf8').trim().split('\n').slice(1);
  const byFile = new Map<string, Expected>();
  for (const line of lines) {
    const [file, recipient, , , reason, hard, feedbackType] = line.split('\t');
    if (recipient !== '1' || byFile.has(file)) continue;
    byFile.set(file, { file, reason, hard: hard === '1', feedbackType: feedbackType ?? '' });
  }
  return [...byFile.values()].filter((e) => readdirSync(SAMPLES).includes(e.file));
}

function dsn(opts: {
  from: string;
  to: string;
  original: string | null;
  status: string;
  diagnostic: string;
}) {
  return [
    'From: Mail Delivery System <MAILER-DAEMON@mx.example.net>',
    `To: ${opts.from}`,
    'Subject: Undelivered Mail Returned to Sender',
    `Message-ID: <dsn-${Math.random().toString(36).slice(2)}@mx.example.net>`,
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=delivery-status; boundary="RPT"',
    '',
    '--RPT',
    'Content-Type: text/plain',
    '',
    'Your message could not be delivered.',
    '',
    '--RPT',
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.example.net',
    '',
    `Final-Recipient: rfc822; ${opts.to}`,
    'Action: failed',
    `Status: ${opts.status}`,
    `Diagnostic-Code: smtp; ${opts.diagnostic}`,
    '',
    '--RPT',
    'Content-Type: text/rfc822-headers',
    '',
    ...(opts.original ? [`Message-ID: ${opts.original}`] : []),
    `From: ${opts.from}`,
    `To: ${opts.to}`,
    'Subject: Hello',
    '',
    '--RPT--',
    '',
  ].join('\r\n');
}

describe('reading real mail through the inbound route', () => {
  // Nothing is sent here: the messages are recorded as sent.
  useApp({ env: { SEND_TICK_MS: '600000' } });
  let t: TestTenant;
  let c: SeededCampaign;
  let seq = 0;

  /** A thread of `inboxIndex`'s inbox with one outbound message to `email`, recorded as sent. */
  async function sent(email: string, inboxIndex: number, enrollment = true, id?: string) {
    seq += 1;
    const existing = await one<{ id: number } | undefined>(
      'SELECT id FROM contacts WHERE workspace_id = $1 AND email = $2',
      [t.workspaceId, email],
    );
    const contactId = existing ? Number(existing.id) : await seedContact(q, t.workspaceId, email);
    let enrollmentId: number | null = null;
    if (enrollment) {
      const [e] = (await q(
        `INSERT INTO enrollments (workspace_id, campaign_id, contact_id, status, current_step, next_step_at)
         VALUES ($1, $2, $3, 'active', 1, now() + interval '1 day')
         ON CONFLICT DO NOTHING RETURNING id`,
        [t.workspaceId, c.campaignId, contactId],
      )) as Array<{ id: number }>;
      enrollmentId = e ? Number(e.id) : null;
    }
    const inboxId = c.inboxIds[inboxIndex];
    const from = (await one<{ email: string }>('SELECT email FROM inboxes WHERE id = $1', [inboxId])).email;
    const [thread] = (await q(
      `INSERT INTO threads (workspace_id, inbox_id, contact_id, enrollment_id, campaign_id, subject, message_count, last_message_at)
       VALUES ($1, $2, $3, $4, $5, 'Hello', 1, now()) RETURNING id`,
      [t.workspaceId, inboxId, contactId, enrollmentId, c.campaignId],
    )) as Array<{ id: number }>;
    const messageId = id ?? `<sent-${seq}-${Math.random().toString(36).slice(2)}@ours.example>`;
    const [message] = (await q(
      `INSERT INTO messages (workspace_id, thread_id, enrollment_id, direction, kind, from_address, to_address,
         subject, body, message_id, status, sent_at, step_position, variant)
       VALUES ($1, $2, $3, 'outbound', 'email', $4, $5, 'Hello', 'Hi', $6, 'sent', now(), 1, 'A') RETURNING id`,
      [t.workspaceId, thread.id, enrollmentId, from, email, messageId],
    )) as Array<{ id: number }>;
    return { contactId, enrollmentId, inboxId, from, messageId, messageRowId: Number(message.id) };
  }

  const post = (inboxIndex: number, raw: string | Buffer) =>
    request(app.getHttpServer())
      .post(`/api/v1/inbound/${c.inboxIds[inboxIndex]}`)
      .set('Authorization', `Bearer ${c.inboundSecrets[inboxIndex]}`)
      .set('Content-Type', 'message/rfc822')
      .send(typeof raw === 'string' ? Buffer.from(raw) : raw);

  const contact = (id: number) =>
    one<{ sendable: boolean; suppression_reason: string | null }>(
      'SELECT suppression_reason IS NULL AS sendable, suppression_reason FROM contacts WHERE id = $1',
      [id],
    );

  beforeAll(async () => {
    t = await createTenant(app);
    c = await seedCampaign(q, {
      workspaceId: t.workspaceId,
      smtpPort: 9, // never used
      domain: 'reading.test',
      inboxes: 8,
      stopOnReplyScope: 'domain',
    });
  });

  it('reads every sample of the corpus as sisimai does, through the route (the table is in docs/mail-reading.md)', async () => {
    const all = expectations();
    expect(all.length).toBeGreaterThan(300);
    let bounces = 0;
    let recognised = 0;
    let hardAgrees = 0;
    let reasonAgrees = 0;
    let reasonRows = 0;
    let deliberateCount = 0;
    const notRecorded: string[] = [];
    const misread: string[] = [];
    const complaintsWrong: string[] = [];
    const autoWrong: string[] = [];
    // Samples rotate over the inboxes; a report that quotes no Message-ID is matched by recipient
    // within its own inbox, so each sample gets a message of its own to be matched against.
    let i = 0;
    for (const e of all) {
      if (e.reason === 'delivered') continue;
      const inboxIndex = i++ % c.inboxIds.length;
      // Distinct reports have distinct Message-IDs (some samples of one family share theirs, and a
      // mail seen twice is recorded once): the report's own header gets one of its own first, so that
      // an original quoted with the report's (anonymised) Message-ID reads as quoted, as the route reads it.
      let text = readFileSync(join(SAMPLES, e.file)).toString('latin1');
      const headerEnd = text.search(/\r?\n\r?\n/);
      text =
        text
          .slice(0, headerEnd)
          .replace(/^Message-ID:[^\n]*(\n[ \t][^\n]*)*/im, `Message-ID: <report-${i}@corpus.example>`) +
        text.slice(headerEnd);
      const raw = Buffer.from(text, 'latin1');
      const reading = readMail(await simpleParser(raw), raw);
      const ids = reading.kind === 'bounce' || reading.kind === 'complaint' ? reading.originalMessageIds : [];
      // The quoted original's Message-ID becomes the one the service used (bare or bracketed, as quoted).
      const ourId = `<sent-for-${i}@ours.example>`;
      let quoted = false;
      for (const id of ids) {
        if (text.includes(id)) quoted = true;
        text = text.split(id).join(ourId);
        const bare = id.slice(1, -1);
        if (text.includes(bare)) quoted = true;
        text = text.split(bare).join(ourId.slice(1, -1));
        // Quoted in a quoted-printable part, cut by a soft line break ("=" at the end of a line).
        const soft = new RegExp(
          id
            .split('')
            .map((ch) => ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
            .join('(?:=\\r?\\n)?'),
          'g',
        );
        if (soft.test(text)) quoted = true;
        text = text.replace(soft, ourId);
      }
      // Matched by Message-ID where one is quoted (an address of its own, so earlier samples' effects
      // on a shared anonymised address cannot blur this one's), else by the failed recipient.
      const address =
        (!quoted && reading.kind === 'bounce' ? reading.recipients[0]?.address : null) ??
        (!quoted && reading.kind === 'complaint' ? reading.recipient : null) ??
        `sample-${i}@corpus.example`;
      const mine = await sent(address.toLowerCase(), inboxIndex, true, ourId);
      const res = await post(inboxIndex, Buffer.from(text, 'latin1'));
      expect([202, 200]).toContain(res.status);
      const data = res.body.data as {
        status: string;
        read_as: string;
        bounce?: { reason: string; hard: boolean };
      };
      if (e.reason === 'feedback') {
        const suppressed = (await contact(mine.contactId)).suppression_reason === 'complained';
        if (data.read_as !== 'complaint' || suppressed !== (e.feedbackType !== 'not-spam'))
          complaintsWrong.push(`${e.file}: ${JSON.stringify(data)}`);
        continue;
      }
      if (e.reason === 'vacation') {
        if (data.read_as !== 'auto_reply') autoWrong.push(`${e.file}: ${data.read_as}`);
        continue;
      }
      bounces += 1;
      if (data.read_as === 'reply' || data.read_as === 'auto_reply')
        misread.push(`${e.file}: ${data.read_as}`);
      const deliberate = DELIBERATE_HARD_SOFT.has(`${e.file}#1`);
      if (deliberate) deliberateCount += 1;
      if (data.read_as === 'delivery_notice') {
        // A report of delays only: not a failure (§18), nothing recorded; sisimai calls it soft.
        recognised += 1;
        if (!e.hard) hardAgrees += 1;
        continue;
      }
      if (data.status !== 'recorded' || !data.bounce) {
        notRecorded.push(`${e.file}: ${data.read_as} ${data.status}`);
        continue;
      }
      recognised += 1;
      reasonRows += 1;
      if (data.bounce.hard === e.hard || deliberate) hardAgrees += 1;
      if (data.bounce.reason === (REASON_NAMES[e.reason] ?? e.reason)) reasonAgrees += 1;
    }
    const pct = (n: number, of = bounces) => Math.round((n / of) * 1000) / 10;
    console.log(
      `corpus through the route: ${bounces} bounces, recognised ${pct(recognised)} %, hard/soft ${pct(hardAgrees)} % (${deliberateCount} deliberate disagreements counted as agreeing), reason ${pct(reasonAgrees, reasonRows)} %`,
    );
    if (notRecorded.length) console.log(`bounces not recorded:\n${notRecorded.join('\n')}`);
    expect(misread).toEqual([]);
    expect(complaintsWrong).toEqual([]);
    expect(autoWrong).toEqual([]);
    expect(recognised / bounces).toBeGreaterThanOrEqual(0.97);
    expect(hardAgrees / bounces).toBeGreaterThanOrEqual(0.97);
    expect(deliberateCount).toBeLessThanOrEqual(DELIBERATE_HARD_SOFT.size);
    expect(reasonAgrees / reasonRows).toBeGreaterThanOrEqual(0.9);
  }, 300_000);

  it('a report that quotes no Message-ID is matched by its failed recipient; a second report about the message changes nothing', async () => {
    const m = await sent('gone@nomatch.example', 0);
    const first = await post(
      0,
      dsn({
        from: m.from,
        to: 'gone@nomatch.example',
        original: null,
        status: '5.1.1',
        diagnostic: '550 5.1.1 User unknown',
      }),
    );
    expect(first.status).toBe(202);
    expect(first.body.data).toMatchObject({
      status: 'recorded',
      kind: 'bounce',
      read_as: 'bounce',
      classification: 'hard_bounce',
      bounce: { reason: 'user_unknown', hard: true, status: '5.1.1', smtp_code: 550 },
    });
    expect(await contact(m.contactId)).toEqual({ sendable: false, suppression_reason: 'bounced' });
    const threadId = (
      await one<{ thread_id: number }>('SELECT thread_id FROM messages WHERE id = $1', [m.messageRowId])
    ).thread_id;
    const shown = await request(app.getHttpServer())
      .get(`/api/v1/threads/${threadId}/messages`)
      .set('Authorization', `Bearer ${t.token}`);
    expect(shown.status).toBe(200);
    const messages = shown.body.data as Array<{ id: number; status: string; kind: string; bounce: unknown }>;
    const original = messages.find((x) => x.id === m.messageRowId)!;
    expect(original.status).toBe('bounced');
    expect(original.bounce).toMatchObject({ reason: 'user_unknown', hard: true });
    expect(messages.find((x) => x.kind === 'bounce')?.bounce).toMatchObject({ reason: 'user_unknown' });

    const events = async () =>
      (
        await one<{ n: number }>(
          `SELECT count(*)::int AS n FROM events WHERE workspace_id = $1 AND type = 'email.bounced' AND (data->>'message_id')::bigint = $2`,
          [t.workspaceId, m.messageRowId],
        )
      ).n;
    expect(await events()).toBe(1);
    // Another report (forged or repeated, another Message-ID of its own) about the same message.
    const again = await post(
      0,
      dsn({
        from: m.from,
        to: 'gone@nomatch.example',
        original: m.messageId,
        status: '5.2.2',
        diagnostic: '552 mailbox full',
      }),
    );
    expect(again.status).toBe(202);
    expect(again.body.data).toMatchObject({ status: 'ignored', read_as: 'bounce' });
    expect(await events()).toBe(1);
    const bounceMessages = await one<{ n: number }>(
      `SELECT count(*)::int AS n FROM messages WHERE thread_id = (SELECT thread_id FROM messages WHERE id = $1) AND kind = 'bounce'`,
      [m.messageRowId],
    );
    expect(bounceMessages.n).toBe(1);
  });

  it('a bounce or a complaint quoting a Message-ID the service never sent is ignored, even about an address the inbox mailed', async () => {
    const m = await sent('victim@quoted-other.example', 0);
    const bounce = await post(
      0,
      dsn({
        from: m.from,
        to: 'victim@quoted-other.example',
        original: '<not-ours-1@elsewhere.example>',
        status: '5.1.1',
        diagnostic: '550 5.1.1 User unknown',
      }),
    );
    expect(bounce.status).toBe(202);
    expect(bounce.body.data).toMatchObject({ status: 'ignored', read_as: 'bounce' });
    const complaint = await post(
      0,
      [
        'From: feedback@fbl.example',
        `To: ${m.from}`,
        'Subject: complaint',
        `Message-ID: <fbl-${Math.random().toString(36).slice(2)}@fbl.example>`,
        'MIME-Version: 1.0',
        'Content-Type: multipart/report; report-type=feedback-report; boundary="FB"',
        '',
        '--FB',
        'Content-Type: text/plain',
        '',
        'A recipient reported this message.',
        '--FB',
        'Content-Type: message/feedback-report',
        '',
        'Feedback-Type: abuse',
        'User-Agent: fbl/1.0',
        'Version: 1',
        'Original-Rcpt-To: victim@quoted-other.example',
        '',
        '--FB',
        'Content-Type: message/rfc822',
        '',
        'Message-ID: <not-ours-2@elsewhere.example>',
        'From: someone@elsewhere.example',
        'To: victim@quoted-other.example',
        'Subject: Hello',
        '',
        'Hi',
        '--FB--',
        '',
      ].join('\r\n'),
    );
    expect(complaint.status).toBe(202);
    expect(complaint.body.data).toMatchObject({ status: 'ignored', read_as: 'complaint' });
    expect(await contact(m.contactId)).toEqual({ sendable: true, suppression_reason: null });
    const status = await one<{ status: string }>('SELECT status FROM enrollments WHERE id = $1', [
      m.enrollmentId,
    ]);
    expect(status.status).toBe('active');
    const recorded = await one<{ n: number }>(
      `SELECT count(*)::int AS n FROM messages WHERE workspace_id = $1 AND direction = 'inbound' AND to_address = $2 AND thread_id = (SELECT thread_id FROM messages WHERE id = $3)`,
      [t.workspaceId, m.from, m.messageRowId],
    );
    expect(recorded.n).toBe(0);
  });

  it('three mailbox_full bounces of a contact within 30 days suppress it; two do not', async () => {
    const email = 'full@quota.example';
    const full = (original: string, from: string) =>
      dsn({
        from,
        to: email,
        original,
        status: '5.2.2',
        diagnostic: '552 5.2.2 Mailbox full: quota exceeded',
      });
    const one1 = await sent(email, 1, false);
    const one2 = await sent(email, 2, false);
    const one3 = await sent(email, 3, false);
    const r1 = await post(1, full(one1.messageId, one1.from));
    expect(r1.body.data).toMatchObject({
      classification: 'soft_bounce',
      bounce: { reason: 'mailbox_full', hard: false },
    });
    await post(2, full(one2.messageId, one2.from));
    expect(await contact(one1.contactId)).toEqual({ sendable: true, suppression_reason: null });
    await post(3, full(one3.messageId, one3.from));
    expect(await contact(one1.contactId)).toEqual({ sendable: false, suppression_reason: 'bounced' });
    const soft = await one<{ soft_bounced: number }>(
      `SELECT sum(soft_bounced)::int AS soft_bounced FROM daily_metrics WHERE workspace_id = $1 AND campaign_id = $2`,
      [t.workspaceId, c.campaignId],
    );
    expect(soft.soft_bounced).toBeGreaterThanOrEqual(3);
    const daily = await request(app.getHttpServer())
      .get(`/api/v1/analytics/daily?campaign_id=${c.campaignId}`)
      .set('Authorization', `Bearer ${t.token}`);
    expect(daily.status).toBe(200);
    expect(daily.body.data[0]).toHaveProperty('soft_bounced', soft.soft_bounced);
  });

  it('a blocked bounce leaves the contact sendable and its enrollment going, and fires inbox.error', async () => {
    const m = await sent('someone@blocking.example', 4);
    const res = await post(
      4,
      dsn({
        from: m.from,
        to: 'someone@blocking.example',
        original: m.messageId,
        status: '5.7.1',
        diagnostic: '554 5.7.1 Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org',
      }),
    );
    expect(res.body.data).toMatchObject({ status: 'recorded', bounce: { reason: 'blocked', hard: false } });
    expect(await contact(m.contactId)).toEqual({ sendable: true, suppression_reason: null });
    expect(await one('SELECT status, stop_reason FROM enrollments WHERE id = $1', [m.enrollmentId])).toEqual({
      status: 'active',
      stop_reason: null,
    });
    const inbox = await one<{ last_error: string; status: string }>(
      'SELECT last_error, status FROM inboxes WHERE id = $1',
      [m.inboxId],
    );
    expect(inbox.status).toBe('active');
    expect(inbox.last_error).toMatch(/^blocked bounce 5\.7\.1 from blocking\.example: .*spamhaus/);
    const events = (await q(
      `SELECT data FROM events WHERE workspace_id = $1 AND type = 'inbox.error' AND data->>'inbox_id' = $2`,
      [t.workspaceId, m.inboxId],
    )) as Array<{ data: Record<string, unknown> }>;
    expect(events.map((e) => e.data)).toContainEqual({
      inbox_id: m.inboxId,
      email: m.from,
      status: 'active',
      error: inbox.last_error,
    });
    const bounced = await one<{ data: Record<string, unknown> }>(
      `SELECT data FROM events WHERE workspace_id = $1 AND type = 'email.bounced' AND (data->>'message_id')::bigint = $2`,
      [t.workspaceId, m.messageRowId],
    );
    expect(bounced.data).toMatchObject({
      bounce_type: 'soft',
      suppressed: false,
      bounce: { reason: 'blocked' },
    });
  });

  it('a complaint forwarded as multipart/mixed suppresses; Feedback-Type not-spam never does', async () => {
    const arf = (original: string, from: string, to: string, type: string) =>
      [
        'From: feedback@fbl.example',
        `To: ${from}`,
        'Subject: FW: complaint',
        `Message-ID: <fbl-${Math.random().toString(36).slice(2)}@fbl.example>`,
        'MIME-Version: 1.0',
        'Content-Type: multipart/mixed; boundary="MX"',
        '',
        '--MX',
        'Content-Type: text/plain',
        '',
        'A recipient reported this message.',
        '--MX',
        'Content-Type: message/feedback-report',
        '',
        `Feedback-Type: ${type}`,
        'User-Agent: fbl/1.0',
        'Version: 1',
        `Original-Rcpt-To: ${to}`,
        '',
        '--MX',
        'Content-Type: message/rfc822',
        '',
        `Message-ID: ${original}`,
        `From: ${from}`,
        `To: ${to}`,
        'Subject: Hello',
        '',
        'Hi',
        '--MX--',
        '',
      ].join('\r\n');
    const a = await sent('angry@fbl-target.example', 5);
    const ra = await post(5, arf(a.messageId, a.from, 'angry@fbl-target.example', 'abuse'));
    expect(ra.body.data).toMatchObject({
      status: 'recorded',
      read_as: 'complaint',
      classification: 'complaint',
    });
    expect(await contact(a.contactId)).toEqual({ sendable: false, suppression_reason: 'complained' });
    const b = await sent('happy@fbl-target.example', 6);
    const rb = await post(6, arf(b.messageId, b.from, 'happy@fbl-target.example', 'not-spam'));
    expect(rb.body.data).toMatchObject({
      status: 'recorded',
      read_as: 'complaint',
      classification: 'not_spam',
    });
    expect(await contact(b.contactId)).toEqual({ sendable: true, suppression_reason: null });
  });

  it("company-wide stop takes the domain the message went to, not the reply's From", async () => {
    const target = await sent('ceo@target-co.example', 7);
    const colleague = await sent('cfo@target-co.example', 7);
    const bystander = await sent('someone@innocent-co.example', 7);
    const res = await post(
      7,
      [
        // A From at another company (spoofable) must not stop innocent-co's contacts.
        'From: someone@innocent-co.example',
        `To: ${target.from}`,
        'Subject: Re: Hello',
        `Message-ID: <reply-${Math.random().toString(36).slice(2)}@target-co.example>`,
        `In-Reply-To: ${target.messageId}`,
        '',
        'Sounds good, call me.',
        '',
      ].join('\r\n'),
    );
    expect(res.body.data).toMatchObject({ status: 'recorded', read_as: 'reply' });
    const status = async (id: number | null) =>
      (await one<{ status: string }>('SELECT status FROM enrollments WHERE id = $1', [id])).status;
    expect(await status(target.enrollmentId)).toBe('stopped');
    expect(await status(colleague.enrollmentId)).toBe('stopped');
    expect(await status(bystander.enrollmentId)).toBe('active');
  });
});
