import { readFileSync } from 'node:fs';
import { simpleParser } from 'mailparser';
import { readMail } from './read-mail.js';
import { referencedMessageIds } from './references.js';

const crlf = (s: string): Buffer => Buffer.from(s.replace(/\r?\n/g, '\r\n'));

function dsn(status: string): string {
  return `From: MAILER-DAEMON@mx.example.com
To: sender@acme.test
Subject: Undelivered Mail Returned to Sender
Message-ID: <dsn@mx.example.com>
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="B"

--B
Content-Type: text/plain

Delivery failed.

--B
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.example.com

Final-Recipient: rfc822; Bob@Example.com
Action: failed
Status: ${status}
Diagnostic-Code: smtp; 550 ${status} <bob@example.com>: Recipient address
 rejected: User unknown

--B
Content-Type: message/rfc822

Message-ID: <orig@acme.test>
From: sender@acme.test
To: bob@example.com
Subject: Hello

Body
--B--
`;
}

async function classifyRaw(text: string) {
  const raw = crlf(text);
  const mail = await simpleParser(raw);
  return { c: readMail(mail, raw), mail, raw };
}

/** The cases the first classifier was written for, read by its successor (reading/read-mail.ts). */
describe("reading the service's own test mail", () => {
  it('reads an RFC 3464 report: 5.1.1 is hard; 4.2.2 (full mailbox) and 5.7.1 (refused by policy) soft; folded diagnostics unfold', async () => {
    const { c, mail, raw } = await classifyRaw(dsn('5.1.1'));
    expect(c).toEqual({
      kind: 'bounce',
      recipients: [
        expect.objectContaining({
          address: 'bob@example.com',
          status: '5.1.1',
          smtpCode: 550,
          diagnostic: '550 5.1.1 <bob@example.com>: Recipient address rejected: User unknown',
          reason: 'user_unknown',
          hard: true,
        }),
      ],
      originalMessageIds: ['<orig@acme.test>'],
    });
    expect(referencedMessageIds(mail, raw, true)).toContain('<orig@acme.test>');
    const soft = (await classifyRaw(dsn('4.2.2'))).c;
    expect(soft.kind).toBe('bounce');
    if (soft.kind === 'bounce') expect(soft.recipients[0]).toMatchObject({ status: '4.2.2', hard: false });
    const policy = (await classifyRaw(dsn('5.7.1'))).c;
    expect(policy.kind).toBe('bounce');
    if (policy.kind === 'bounce')
      expect(policy.recipients[0]).toMatchObject({ status: '5.7.1', hard: false });
  });

  it('a delivery report saying "delivered" (2.x.x) is not a bounce', async () => {
    const delivered = dsn('5.1.1')
      .replace('Action: failed', 'Action: delivered')
      .replaceAll('5.1.1', '2.0.0');
    expect((await classifyRaw(delivered)).c.kind).toBe('delivery_notice');
  });

  it('auto-replies: Auto-Submitted other than "no", X-Autoreply, out-of-office subjects', async () => {
    const base = 'From: a@example.com\nTo: s@acme.test\nIn-Reply-To: <m@acme.test>\n';
    expect((await classifyRaw(`${base}Subject: Re: hi\nAuto-Submitted: auto-replied\n\nAway\n`)).c.kind).toBe(
      'auto_reply',
    );
    expect((await classifyRaw(`${base}Subject: Re: hi\nX-Autoreply: yes\n\nAway\n`)).c.kind).toBe(
      'auto_reply',
    );
    expect((await classifyRaw(`${base}Subject: Out of Office: Re: hi\n\nAway\n`)).c.kind).toBe('auto_reply');
    expect(
      (await classifyRaw(`${base}Subject: Re: hi\nAuto-Submitted: no\n\nSure, let us talk\n`)).c.kind,
    ).toBe('reply');
    expect((await classifyRaw(`${base}Subject: Re: hi\n\nSure\n`)).c.kind).toBe('reply');
  });

  it('collects In-Reply-To and References, and only looks inside bodies for bounces', async () => {
    const text =
      'From: a@example.com\nSubject: Re: hi\nIn-Reply-To: <b@acme.test>\nReferences: <a@acme.test> <b@acme.test>\n\nMessage-ID: <quoted@x>\n';
    const raw = crlf(text);
    const mail = await simpleParser(raw);
    expect(referencedMessageIds(mail, raw, false)).toEqual(['<b@acme.test>', '<a@acme.test>']);
    expect(referencedMessageIds(mail, raw, true)).toContain('<quoted@x>');
  });

  describe('RFC 5965 feedback reports (test/fixtures/arf)', () => {
    const fixture = (name: string): string =>
      readFileSync(`test/fixtures/arf/${name}.eml`, 'utf8')
        .replaceAll('{{ORIGINAL_MESSAGE_ID}}', '<orig-42@acme.test>')
        .replaceAll('{{ORIGINAL_TO}}', 'pat@example.com')
        .replaceAll('{{ORIGINAL_FROM}}', 'sam@acme.test')
        .replaceAll('{{ORIGINAL_SUBJECT}}', 'Hello Pat')
        .replaceAll('{{SENDER_DOMAIN}}', 'acme.test')
        .replaceAll('{{FEEDBACK_TO}}', 'fbl@acme.test');

    it.each([
      ['yahoo-cfl', 'pat@example.com'],
      ['microsoft-jmrp', 'pat@example.com'],
      // Without Original-Rcpt-To the quoted original's To names the recipient (the old reader gave null).
      ['headers-only', 'pat@example.com'],
    ])(
      '%s: a complaint, whatever its Auto-Submitted, with the embedded original Message-ID',
      async (name, recipient) => {
        const { c, mail, raw } = await classifyRaw(fixture(name));
        expect(c).toEqual({
          kind: 'complaint',
          feedbackType: 'abuse',
          recipient,
          originalMessageIds: ['<orig-42@acme.test>'],
        });
        const refs = referencedMessageIds(mail, raw, true);
        expect(refs).toContain('<orig-42@acme.test>');
        // The report's own Message-ID is not a reference.
        expect(refs).not.toContain(mail.messageId);
      },
    );

    it('reads Feedback-Type case-insensitively across folded lines, defaulting to abuse', async () => {
      const folded = fixture('headers-only').replace(
        'Feedback-Type: abuse\n',
        'feedback-type:  Fraud\nOriginal-Rcpt-To:\n <A@B.example>\n',
      );
      expect((await classifyRaw(folded)).c).toMatchObject({
        kind: 'complaint',
        feedbackType: 'fraud',
        recipient: 'a@b.example',
      });
      const noType = fixture('headers-only').replace('Feedback-Type: abuse\n', '');
      expect((await classifyRaw(noType)).c).toMatchObject({
        kind: 'complaint',
        feedbackType: 'abuse',
        recipient: 'pat@example.com',
      });
    });

    it('a delivery-status report is still a bounce, not a complaint', async () => {
      expect((await classifyRaw(dsn('5.1.1'))).c.kind).toBe('bounce');
    });
  });
});
