import { readFileSync } from 'node:fs';
import { simpleParser } from 'mailparser';
import { classify, parseDeliveryStatus, parseFeedbackReport, referencedMessageIds } from './classify.js';

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
  return { c: classify(mail, raw), mail, raw };
}

describe('classify', () => {
  it('reads an RFC 3464 report: 5.1.1 is hard, 4.x.x soft, 5.7.x policy; folded diagnostics unfold', async () => {
    const { c, mail, raw } = await classifyRaw(dsn('5.1.1'));
    expect(c).toEqual({
      kind: 'bounce',
      bounceType: 'hard',
      statusCode: '5.1.1',
      diagnostic: '550 5.1.1 <bob@example.com>: Recipient address rejected: User unknown',
      recipient: 'bob@example.com',
    });
    expect(referencedMessageIds(mail, raw, true)).toContain('<orig@acme.test>');
    expect((await classifyRaw(dsn('4.2.2'))).c).toMatchObject({
      kind: 'bounce',
      bounceType: 'soft',
      statusCode: '4.2.2',
    });
    expect((await classifyRaw(dsn('5.7.1'))).c).toMatchObject({ kind: 'bounce', bounceType: 'policy' });
  });

  it('a delivery report saying "delivered" (2.x.x) is not a bounce', () => {
    expect(
      parseDeliveryStatus('Final-Recipient: rfc822; a@b.c\nAction: delivered\nStatus: 2.0.0\n'),
    ).toBeNull();
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
      ['headers-only', null],
    ])(
      '%s: a complaint, whatever its Auto-Submitted, with the embedded original Message-ID',
      async (name, recipient) => {
        const { c, mail, raw } = await classifyRaw(fixture(name));
        expect(c).toEqual({ kind: 'complaint', feedbackType: 'abuse', recipient });
        const refs = referencedMessageIds(mail, raw, true);
        expect(refs).toContain('<orig-42@acme.test>');
        // The report's own Message-ID is not a reference.
        expect(refs).not.toContain(mail.messageId);
      },
    );

    it('reads Feedback-Type case-insensitively across folded lines, defaulting to abuse', async () => {
      expect(
        parseFeedbackReport('Version: 1\nfeedback-type:  Fraud\nOriginal-Rcpt-To:\n <A@B.example>\n'),
      ).toEqual({
        feedbackType: 'fraud',
        recipient: 'a@b.example',
      });
      expect(parseFeedbackReport('Version: 1\nUser-Agent: x\n')).toBeNull();
      const noType = fixture('headers-only').replace('Feedback-Type: abuse\n', '');
      expect((await classifyRaw(noType)).c).toEqual({
        kind: 'complaint',
        feedbackType: 'abuse',
        recipient: null,
      });
    });

    it('a delivery-status report is still a bounce, not a complaint', async () => {
      expect((await classifyRaw(dsn('5.1.1'))).c.kind).toBe('bounce');
    });
  });
});
