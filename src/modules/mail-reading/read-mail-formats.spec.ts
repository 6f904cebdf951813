/** readMail on the plain-text forms of the common mail systems. */
import { bounce, daemon, ORIGINAL, read } from './fixtures/test-mail.js';

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
