import { crlf, daemon, dsn, ORIGINAL, PATHOLOGICAL_TEXT, read } from './fixtures/test-mail.js';
import { SCAN_LIMIT } from './formats/format.js';
import { readMail } from './read-mail.js';
import { simpleParser } from 'mailparser';

describe('readMail: RFC 3464 reports', () => {
  it('reads each recipient block, leaves out delivered ones, and finds the attached original', async () => {
    const r = await read(
      dsn(`Final-Recipient: rfc822; Bob@Example.com
Original-Recipient: rfc822; bob@example.com
Action: failed
Status: 5.1.1
Diagnostic-Code: smtp; 550 5.1.1 <bob@example.com>: Recipient address
    rejected: User unknown

Final-Recipient: rfc822; ann@example.com
Action: delivered
Status: 2.0.0

Final-Recipient: rfc822; cid@example.org
Action: failed
Status: 5.2.2
Diagnostic-Code: smtp; 552 5.2.2 Mailbox full`),
    );
    expect(r.kind).toBe('bounce');
    if (r.kind !== 'bounce') return;
    expect(r.recipients.map((x) => [x.address, x.status, x.smtpCode, x.action])).toEqual([
      ['bob@example.com', '5.1.1', 550, 'failed'],
      ['cid@example.org', '5.2.2', 552, 'failed'],
    ]);
    expect(r.recipients[0].diagnostic).toBe(
      '550 5.1.1 <bob@example.com>: Recipient address rejected: User unknown',
    );
    expect(r.originalMessageIds).toEqual(['<orig-1@acme.test>']);
  });

  it('reads the fields inline in a plain-text report, and never the report’s own ids', async () => {
    const r = await read(
      daemon(
        'Returned mail: see transcript for details',
        `Your message could not be delivered.

Final-Recipient: RFC822; <bob@example.com>
Action: failed
Status: 5.1.1
Diagnostic-Code: X-Unix; no such user

----- Original message -----
${ORIGINAL}`,
      ),
    );
    expect(r).toMatchObject({
      kind: 'bounce',
      recipients: [{ address: 'bob@example.com', status: '5.1.1', diagnostic: 'no such user' }],
      originalMessageIds: ['<orig-1@acme.test>'],
    });
  });

  it('reads a success-only report, or a delay-only one, as a delivery notice', async () => {
    const delivered = await read(
      dsn('Final-Recipient: rfc822; bob@example.com\nAction: delivered\nStatus: 2.0.0'),
    );
    expect(delivered).toEqual({ kind: 'delivery_notice', originalMessageIds: ['<orig-1@acme.test>'] });
    const delayed = await read(
      dsn(
        'Final-Recipient: rfc822; bob@example.com\nAction: delayed\nStatus: 4.4.7',
        'Delayed Mail (still being retried)',
      ),
    );
    expect(delayed.kind).toBe('delivery_notice');
  });
});

describe('readMail: Amazon SES notifications', () => {
  const sns = (json: object) => `From: no-reply@sns.amazonaws.com
To: sender@acme.test
Subject: AWS Notification Message
Content-Type: text/plain; charset=UTF-8

${JSON.stringify(json).replace(/(.{70})/g, '$1\n')}
--
If you wish to stop receiving notifications from this topic, please click the link below.
`;
  it('reads a bounce, its sub-type as a hint, and the original’s Message-ID from its headers', async () => {
    const r = await read(
      sns({
        notificationType: 'Bounce',
        bounce: {
          bounceType: 'Permanent',
          bounceSubType: 'NoEmail',
          bouncedRecipients: [
            {
              emailAddress: 'Bob@example.com',
              action: 'failed',
              status: '5.1.1',
              diagnosticCode: 'smtp; 550 5.1.1 user unknown',
            },
          ],
        },
        mail: { headers: [{ name: 'Message-ID', value: '<orig-1@acme.test>' }] },
      }),
    );
    expect(r).toMatchObject({
      kind: 'bounce',
      recipients: [
        { address: 'bob@example.com', status: '5.1.1', smtpCode: 550, hint: 'user_unknown', hard: true },
      ],
      originalMessageIds: ['<orig-1@acme.test>'],
    });
  });

  it('reads a complaint and a delivery', async () => {
    const complaint = await read(
      sns({
        notificationType: 'Complaint',
        complaint: {
          complainedRecipients: [{ emailAddress: 'bob@example.com' }],
          complaintFeedbackType: 'abuse',
        },
      }),
    );
    expect(complaint).toMatchObject({
      kind: 'complaint',
      feedbackType: 'abuse',
      recipient: 'bob@example.com',
    });
    expect((await read(sns({ notificationType: 'Delivery', delivery: {} }))).kind).toBe('delivery_notice');
  });
});

describe('readMail: complaints in every wrapping', () => {
  const arf = (contentType: string, feedbackType: string) => `From: fbl@isp.example
To: sender@acme.test
Subject: Abuse report
Message-ID: <fbl-1@isp.example>
MIME-Version: 1.0
Content-Type: ${contentType}; boundary="F"

--F
Content-Type: text/plain

This is an abuse report.

--F
Content-Type: message/feedback-report

Feedback-Type: ${feedbackType}
User-Agent: FBL/1.0
Version: 1
Original-Rcpt-To: <Bob@example.com>

--F
Content-Type: message/rfc822

${ORIGINAL}
--F--
`;

  it('reads RFC 5965 reports, forwarded ones (multipart/mixed) too; not-spam is kept as is', async () => {
    expect(await read(arf('multipart/report; report-type=feedback-report', 'Abuse'))).toEqual({
      kind: 'complaint',
      feedbackType: 'abuse',
      recipient: 'bob@example.com',
      originalMessageIds: ['<orig-1@acme.test>'],
    });
    expect(await read(arf('multipart/mixed', 'not-spam'))).toMatchObject({
      kind: 'complaint',
      feedbackType: 'not-spam',
    });
  });

  it('reads an original forwarded as message/rfc822 with a feedback header (JMRP)', async () => {
    const r = await read(`From: staff@hotmail.example
To: abuse@acme.test
Subject: complaint about message from 192.0.2.1
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="J"

--J
Content-Type: message/rfc822
Content-Disposition: inline

X-HmXmrOriginalRecipient: bob@example.com
${ORIGINAL}
--J--
`);
    expect(r).toMatchObject({ kind: 'complaint', feedbackType: 'abuse', recipient: 'bob@example.com' });
  });
});

describe('readMail: auto-replies and replies', () => {
  const person = (headers: string, subject: string) => `From: Bob <bob@example.com>
To: sender@acme.test
Subject: ${subject}
Message-ID: <r-1@example.com>
In-Reply-To: <orig-1@acme.test>
${headers}
Thanks, will read it.`;

  it('reads RFC 3834 and vendor headers, and out-of-office subjects in several languages', async () => {
    expect((await read(person('Auto-Submitted: auto-replied\n', 'Re: Hello'))).kind).toBe('auto_reply');
    expect((await read(person('X-Autoreply: yes\n', 'Re: Hello'))).kind).toBe('auto_reply');
    expect((await read(person('Precedence: auto_reply\n', 'Re: Hello'))).kind).toBe('auto_reply');
    for (const subject of [
      'Out of Office: Hello',
      'Automatische Antwort: Hello',
      'Abwesenheitsnotiz: Hello',
      'Réponse automatique : Hello',
      'Respuesta automática: Hello',
      '自動返信: Hello',
    ]) {
      expect([subject, (await read(person('', subject))).kind]).toEqual([subject, 'auto_reply']);
    }
  });

  it('reads a person’s answer as a reply, and Auto-Submitted: no as a person', async () => {
    expect(await read(person('', 'Re: Hello'))).toEqual({ kind: 'reply' });
    expect(await read(person('', 'Re: Undeliverable mail returned to sender?'))).toEqual({ kind: 'reply' });
    expect(await read(person('', 'Re: Absence management for your team'))).toEqual({ kind: 'reply' });
    expect((await read(person('', 'Absence: Hello'))).kind).toBe('auto_reply');
    expect((await read(person('', 'Away until Monday'))).kind).toBe('auto_reply');
    expect(await read(person('Auto-Submitted: no\n', 'Re: Hello'))).toEqual({ kind: 'reply' });
  });

  it('reads a read receipt (RFC 8098 disposition notification) as an automatic answer, not a person', async () => {
    const r = await read(`From: Bob <bob@example.com>
To: sender@acme.test
Subject: Read: Hello
MIME-Version: 1.0
Content-Type: multipart/report; report-type=disposition-notification; boundary="M"

--M
Content-Type: text/plain

Your message was read.

--M
Content-Type: message/disposition-notification

Reporting-UA: mail.example.com; Outlook
Final-Recipient: rfc822; bob@example.com
Original-Message-ID: <orig-1@acme.test>
Disposition: manual-action/MDN-sent-manually; displayed

--M--
`);
    expect(r).toEqual({ kind: 'auto_reply' });
  });

  it('never reads a report that carries auto-reply headers as an auto-reply', async () => {
    const r = await read(
      daemon(
        'Undeliverable: Hello',
        'bob@example.com\n    550 5.1.1 User unknown\n',
        'Auto-Submitted: auto-replied\n',
      ),
    );
    expect(r.kind).toBe('bounce');
  });
});

describe('readMail: bounds', () => {
  // How fast these read is shown by `npm run bench` (bench/mail-reading.mjs: the 10 MB report and the
  // pathological text, each next to mailparser's own time), not by timed unit tests. What is asserted
  // here is the bound itself: only a fixed prefix of any text is looked at, and a limited number of
  // parts and ids.
  it('reads a 10 MB report, and looks at no text past the scan limit', async () => {
    const big = dsn(`Final-Recipient: rfc822; bob@example.com\nAction: failed\nStatus: 5.1.1`).replace(
      'Hi Bob',
      'x'.repeat(76).concat('\n').repeat(140_000),
    );
    const raw = crlf(big);
    expect(raw.length).toBeGreaterThan(10_000_000);
    const r = readMail(await simpleParser(raw), raw);
    expect(r.kind).toBe('bounce');
    if (r.kind === 'bounce') expect(r.recipients.map((x) => x.address)).toEqual(['bob@example.com']);

    // A plain-text report whose failed recipient is written only after SCAN_LIMIT characters of
    // filler is not read as naming it; the same report with the filler after it is.
    const filler = 'y'
      .repeat(76)
      .concat('\n')
      .repeat(Math.ceil(SCAN_LIMIT / 77) + 10);
    const named = 'carol@example.com\n    550 5.1.1 User unknown\n';
    const early = await read(daemon('Undeliverable: Hello', named + filler));
    expect(early.kind).toBe('bounce');
    if (early.kind === 'bounce')
      expect(early.recipients.map((x) => x.address)).toEqual(['carol@example.com']);
    const late = await read(daemon('Undeliverable: Hello', filler + named));
    const lateAddresses = late.kind === 'bounce' ? late.recipients.map((x) => x.address) : [];
    expect(lateAddresses).not.toContain('carol@example.com');
  });

  it('reads a report with 200 quoted originals within its part and id limits (mailparser refuses many more)', async () => {
    const parts = Array.from(
      { length: 200 },
      (_, i) =>
        `--B\nContent-Type: message/rfc822\n\nMessage-ID: <o-${i}@acme.test>\nSubject: x\n\n${'y'.repeat(2000)}\n`,
    ).join('');
    const report = dsn('Final-Recipient: rfc822; bob@example.com\nAction: failed\nStatus: 5.1.1').replace(
      '--B--',
      `${parts}--B--`,
    );
    const raw = crlf(report);
    const r = readMail(await simpleParser(raw), raw);
    expect(r.kind).toBe('bounce');
    if (r.kind === 'bounce') expect(r.originalMessageIds.length).toBeLessThanOrEqual(20);
  });

  it('reads pathological text to an answer (every pattern linear; a backtracking one would run past the test timeout)', async () => {
    const r = await read(daemon('Undeliverable', PATHOLOGICAL_TEXT));
    expect(r.kind).toBe('bounce');
  });
});
