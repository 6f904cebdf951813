import { simpleParser } from 'mailparser';
import { readMail } from './read-mail.js';
import type { BounceVerdict, MailReading } from './types.js';

const crlf = (s: string): Buffer => Buffer.from(s.replace(/\r?\n/g, '\r\n'));

async function read(text: string): Promise<MailReading> {
  const raw = crlf(text);
  return readMail(await simpleParser(raw), raw);
}

async function bounce(text: string): Promise<BounceVerdict[]> {
  const r = await read(text);
  if (r.kind !== 'bounce') throw new Error(`read as ${r.kind}`);
  return r.recipients;
}

const ORIGINAL = `Message-ID: <orig-1@acme.test>
From: sender@acme.test
To: bob@example.com
Subject: Hello

Hi Bob`;

function daemon(subject: string, body: string, extra = ''): string {
  return `From: Mail Delivery System <MAILER-DAEMON@mx.example.com>
To: sender@acme.test
Subject: ${subject}
Message-ID: <report-1@mx.example.com>
In-Reply-To: <unrelated@elsewhere.test>
${extra}MIME-Version: 1.0
Content-Type: text/plain; charset=us-ascii

${body}`;
}

function dsn(blocks: string, subject = 'Undelivered Mail Returned to Sender'): string {
  return `From: MAILER-DAEMON@mx.example.com (Mail Delivery System)
To: sender@acme.test
Subject: ${subject}
Message-ID: <report-2@mx.example.com>
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="B"

--B
Content-Type: text/plain

The mail system

--B
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.example.com

${blocks}

--B
Content-Type: message/rfc822

${ORIGINAL}
--B--
`;
}

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

describe('readMail: plain-text formats', () => {
  it('a text-only delay warning is a delivery notice; a final "given up" after a delay is a bounce', async () => {
    const warning = await read(
      daemon(
        'Warning: message 1abc-000 delayed 24 hours',
        `This message was created automatically by mail delivery software.
A message that you sent has not yet been delivered to one or more of its
recipients after more than 24 hours on the queue.

  bob@example.com
    host mx.example.com [192.0.2.1]: 451 4.7.1 Greylisted, try again later

No action is required on your part. Delivery attempts will continue.
`,
      ),
    );
    expect(warning.kind).toBe('delivery_notice');
    const [final] = await bounce(
      daemon(
        'failure notice',
        `I'm afraid I wasn't able to deliver your message to the following addresses.
This is a temporary failure, but I'm not going to try again; this message has been in the queue too long.

<bob@example.com>:
Sorry, I wasn't able to establish an SMTP connection. (#4.4.1)
`,
      ),
    );
    expect([final.address, final.status]).toEqual(['bob@example.com', '4.4.1']);
  });

  it('qmail: <addr>: then the remote host’s words, the (#x.y.z) status', async () => {
    const [r] = await bounce(
      daemon(
        'failure notice',
        `Hi. This is the qmail-send program at mx.example.com.
I'm afraid I wasn't able to deliver your message to the following addresses.
This is a permanent error; I've given up. Sorry it didn't work out.

<bob@example.com>:
192.0.2.1 does not like recipient.
Remote host said: 550 5.1.1 <bob@example.com>: User unknown
Giving up on 192.0.2.1.

--- Below this line is a copy of the message.

${ORIGINAL}`,
      ),
    );
    expect([r.address, r.status, r.smtpCode, r.reason, r.hard]).toEqual([
      'bob@example.com',
      '5.1.1',
      550,
      'user_unknown',
      true,
    ]);
  });

  it('Exim: X-Failed-Recipients names the address; the indented words give the command', async () => {
    const r = await read(
      daemon(
        'Mail delivery failed: returning message to sender',
        `This message was created automatically by mail delivery software.

A message that you sent could not be delivered to one or more of its
recipients. This is a permanent error. The following address(es) failed:

  bob@example.com
    SMTP error from remote mail server after RCPT TO:<bob@example.com>:
    host mx.example.com [192.0.2.1]: 550 5.2.2 <bob@example.com>: Mailbox is full

------ This is a copy of the message, including all the headers. ------

${ORIGINAL}`,
        'X-Failed-Recipients: bob@example.com\nAuto-Submitted: auto-replied\n',
      ),
    );
    expect(r).toMatchObject({
      kind: 'bounce',
      recipients: [
        { address: 'bob@example.com', status: '5.2.2', smtpCode: 550, command: 'RCPT', hard: false },
      ],
      originalMessageIds: ['<orig-1@acme.test>'],
    });
  });

  it('Postfix text: `<addr>: host ... said: ... (in reply to end of DATA command)`', async () => {
    const [r] = await bounce(
      daemon(
        'Undelivered Mail Returned to Sender',
        `This is the mail system at host mx.example.com.

<bob@example.com>: host mx.example.com[192.0.2.1] said: 554 5.7.1 Message
    rejected as spam (in reply to end of DATA command)
`,
      ),
    );
    expect([r.address, r.status, r.smtpCode, r.command]).toEqual(['bob@example.com', '5.7.1', 554, 'DATA']);
    expect(r.diagnostic).toContain('rejected as spam');
  });

  it('Sendmail: a transcript names the address and the command answered', async () => {
    const [r] = await bounce(
      daemon(
        'Returned mail: User unknown',
        `   ----- Transcript of session follows -----
... while talking to mx.example.com.:
>>> RCPT To:<bob@example.com>
<<< 550 5.1.1 <bob@example.com>... User unknown
550 5.1.1 bob@example.com... User unknown
`,
      ),
    );
    expect([r.address, r.status, r.smtpCode, r.command, r.reason]).toEqual([
      'bob@example.com',
      '5.1.1',
      550,
      'RCPT',
      'user_unknown',
    ]);
  });

  it('Sendmail: a refused session names the sender, never as a recipient; its refusal goes to the recipients', async () => {
    const recipients = await bounce(
      daemon(
        'Returned mail: Remote protocol error',
        `   ----- Transcript of session follows -----
While talking to mx.example.org:
>>> MAIL From:<sender@acme.test>
<<< 501 <sender@acme.test>... no access from mail server [192.0.2.55] which is an open relay.
554 <bob@example.org>... Remote protocol error
554 <cid@example.org>... 550 Host unknown
`,
      ),
    );
    expect(recipients.map((r) => [r.address, r.command ?? null])).toEqual([
      ['bob@example.org', 'MAIL'],
      ['cid@example.org', null],
    ]);
    expect(recipients[0].diagnostic).toContain('open relay');
    expect(recipients[1].diagnostic).not.toContain('open relay');
  });

  it('Postfix postmaster transcript (`In:`/`Out:`): an accepted RCPT, a refused DATA', async () => {
    const [r] = await bounce(
      daemon(
        'Postmaster Copy: Undelivered Mail',
        `Transcript of session follows.

 Out: 220 mx.example.com ESMTP
 In:  MAIL FROM:<sender@acme.test> SIZE=2000
 Out: 250 2.1.0 Ok
 In:  RCPT TO:<bob@example.com>
 Out: 250 2.1.5 Ok
 In:  DATA
 Out: 354 End data with <CR><LF>.<CR><LF>
 Out: 451 4.3.0 Error: queue file write error
 In:  QUIT
 Out: 221 2.0.0 Bye
`,
      ),
    );
    expect([r.address, r.status, r.smtpCode, r.command]).toEqual(['bob@example.com', '4.3.0', 451, 'DATA']);
  });

  it('Gmail: the address alone, the server’s words further down', async () => {
    const [r] = await bounce(
      daemon(
        'Delivery Status Notification (Failure)',
        `Delivery to the following recipient failed permanently:

     bob@example.com

Technical details of permanent failure:
Google tried to deliver your message, but it was rejected by the server for the recipient domain.

The error that the other server returned was:
550 5.1.1 <bob@example.com>... User Unknown

----- Original message -----

${ORIGINAL}`,
      ),
    );
    expect([r.address, r.status, r.smtpCode, r.hard]).toEqual(['bob@example.com', '5.1.1', 550, true]);
  });

  it('Gmail today, text only: "wasn\'t delivered to addr" then "The response was:"', async () => {
    const [r] = await bounce(
      daemon(
        'Delivery Status Notification (Failure)',
        `** Address not found **

Your message wasn't delivered to bob@example.com because the address couldn't be found, or is unable to receive mail.

Learn more here: https://support.google.com/mail/?p=NoSuchUser

The response was:

550 5.1.1 The email account that you tried to reach does not exist. Please try double-checking the recipient's email address.
`,
      ),
    );
    expect([r.address, r.status, r.smtpCode, r.hard]).toEqual(['bob@example.com', '5.1.1', 550, true]);
  });

  it('Office 365: `addr<mailto:addr>` then `Remote Server returned`', async () => {
    const [r] = await bounce(
      daemon(
        'Undeliverable: Hello',
        `Delivery has failed to these recipients or groups:

bob@example.com<mailto:bob@example.com>
The email address wasn't found at the destination domain.

Diagnostic information for administrators:

Generating server: AM0PR01MB.eurprd01.prod.outlook.com

bob@example.com
Remote Server returned '550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup'

Original message headers:

${ORIGINAL}`,
      ),
    );
    expect([r.address, r.status, r.smtpCode]).toEqual(['bob@example.com', '5.1.10', 550]);
  });

  it('Exchange 2003: `addr on <date>` and its words; the quoted To: is not a failed address', async () => {
    const recipients = await bounce(
      daemon(
        'Undeliverable: Hello',
        `Your message

  To:      sender@acme.test
  Subject: Hello

did not reach the following recipient(s):

bob@example.com on Thu, 29 Apr 2010 00:00:00 -0000
    The e-mail account does not exist at the organization this message was sent to.
    <mx.example.com #5.1.1>
`,
      ),
    );
    expect(recipients.map((r) => [r.address, r.status])).toEqual([['bob@example.com', '5.1.1']]);
  });

  it('Yahoo: `Remote host said:` with the command in brackets', async () => {
    const [r] = await bounce(
      daemon(
        'Failure Notice',
        `Sorry, we were unable to deliver your message to the following address.

<bob@example.com>:
Remote host said: 552 5.2.2 Over quota [RCPT_TO]
`,
      ),
    );
    expect([r.address, r.smtpCode, r.status, r.command]).toEqual(['bob@example.com', 552, '5.2.2', 'RCPT']);
  });

  it('finds a `>`-quoted or folded original Message-ID, never the report’s own or its In-Reply-To', async () => {
    const r = await read(
      daemon(
        'Undeliverable: Hello',
        `bob@example.com
    550 5.1.1 User unknown

> Message-ID:
>  <orig-1@acme.test>
> Message-Id: <orig-2@acme.test>
> Subject: Hello
`,
      ),
    );
    expect(r).toMatchObject({
      kind: 'bounce',
      originalMessageIds: ['<orig-1@acme.test>', '<orig-2@acme.test>'],
    });
  });

  it('an unknown format: the report’s words, the quoted original’s To as the address', async () => {
    const r = await read(
      daemon(
        'Undeliverable Message',
        `Message could not be delivered to mobile.
Error: No valid recipients for this MM

Original Message:
From: sender@acme.test
To: 5550100@mms.example.com
Subject: test
`,
      ),
    );
    expect(r).toMatchObject({
      kind: 'bounce',
      recipients: [
        { address: '5550100@mms.example.com', diagnostic: expect.stringContaining('No valid recipients') },
      ],
    });
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
  it('reads a 10 MB report in bounded time', async () => {
    const big = dsn(`Final-Recipient: rfc822; bob@example.com\nAction: failed\nStatus: 5.1.1`).replace(
      'Hi Bob',
      'x'.repeat(76).concat('\n').repeat(140_000),
    );
    const raw = crlf(big);
    expect(raw.length).toBeGreaterThan(10_000_000);
    const mail = await simpleParser(raw);
    expect(readMail(mail, raw).kind).toBe('bounce');
    // Only a fixed prefix of any text is read: the time does not grow with the 10 MB.
    const times = [0, 1, 2].map(() => {
      const started = process.hrtime.bigint();
      readMail(mail, raw);
      return Number(process.hrtime.bigint() - started) / 1e6;
    });
    expect(Math.min(...times)).toBeLessThan(100);
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
    const mail = await simpleParser(raw);
    const started = process.hrtime.bigint();
    const r = readMail(mail, raw);
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(200);
    expect(r.kind).toBe('bounce');
    if (r.kind === 'bounce') expect(r.originalMessageIds.length).toBeLessThanOrEqual(20);
  });

  it('stays linear on pathological text (no catastrophic backtracking)', async () => {
    const evil = [
      'a'.repeat(100_000),
      '@'.repeat(50_000),
      'a.'.repeat(50_000),
      'a@a'.repeat(30_000),
      '5.5.5.'.repeat(30_000),
      ' '.repeat(100_000) + '!',
      '<'.repeat(50_000),
      'Message-ID: <'.repeat(20_000),
    ].join('\n');
    const started = process.hrtime.bigint();
    const r = await read(daemon('Undeliverable', evil));
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    expect(r.kind).toBe('bounce');
    expect(ms).toBeLessThan(3000);
  });
});
