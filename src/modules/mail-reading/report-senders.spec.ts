/**
 * A report is never a person's reply (CONTRACT §18): who sent it decides as much as its MIME
 * structure. The mails are written from the formats' documentation (RFC 5321 §4.5.5's null
 * reverse-path, RFC 3834's Auto-Submitted, fml's and Sendmail's own report texts), not copied from
 * the corpus.
 */
import { read } from './fixtures/test-mail.js';

const ORIGINAL_HEADERS = `From: sender@acme.test
To: list@lists.example.org
Subject: Our news
Message-ID: <orig-7@acme.test>`;

describe('readMail: a report is never a reply', () => {
  it('fml: the list software refusing a non-member is a bounce (rejected), not a reply', async () => {
    const r = await read(`Return-Path: <list-admin@lists.example.org>
From: list-admin@lists.example.org
To: sender@acme.test
Subject: NOT MEMBER article from sender@acme.test (list ML)
Message-Id: <202401020304.FML12345.list@lists.example.org>
X-MLServer: fml [fml 4.0.3 release (20011202/4.0.3)]
Precedence: junk
MIME-Version: 1.0
Content-Type: text/plain; charset=us-ascii

You are not a member of this mailing list <list@lists.example.org>.

If you know the general guide of this list, please send mail with the mail body

guide

to the address <list-ctl@lists.example.org>.

Original mail as follows:

${ORIGINAL_HEADERS.replace(/^/gm, '   ')}

   Hello list
`);
    expect(r.kind).toBe('bounce');
    if (r.kind !== 'bounce') return;
    expect(r.recipients[0]).toMatchObject({
      address: 'list@lists.example.org',
      reason: 'rejected',
      hard: false,
    });
    expect(r.originalMessageIds).toContain('<orig-7@acme.test>');
  });

  it('list software known by its own address (owner-, -request, -bounces) saying the post was rejected', async () => {
    for (const from of [
      'owner-list@lists.example.org',
      'list-request@lists.example.org',
      'list-bounces@lists.example.org',
    ]) {
      const r = await read(`From: ${from}
To: sender@acme.test
Subject: Your post to list
Message-ID: <x-${from}>
List-Id: <list.lists.example.org>
Content-Type: text/plain

Your message to list@lists.example.org was rejected: you are not a member of this list.
`);
      expect({ from, kind: r.kind }).toEqual({ from, kind: 'bounce' });
    }
  });

  it('a Sendmail report with a null reverse-path is a bounce even under a subject a person could write', async () => {
    const r = await read(`Return-Path: <>
From: Super-User <root@mx.example.jp>
To: sender@acme.test
Subject: Re: Our news
Message-ID: <report-9@mx.example.jp>
Auto-Submitted: auto-generated (failure)
Content-Type: text/plain

The original message was received at Mon, 1 Jan 2024 10:00:00 +0900
from localhost [127.0.0.1]

   ----- The following addresses had permanent fatal errors -----
<kijitora@example.jp>
    (reason: 550 5.1.1 <kijitora@example.jp>... User unknown)

   ----- Transcript of session follows -----
... while talking to mx.example.jp.:
>>> RCPT To:<kijitora@example.jp>
<<< 550 5.1.1 <kijitora@example.jp>... User unknown
550 5.1.1 kijitora@example.jp... User unknown
`);
    expect(r.kind).toBe('bounce');
    if (r.kind !== 'bounce') return;
    expect(r.recipients[0]).toMatchObject({
      address: 'kijitora@example.jp',
      reason: 'user_unknown',
      hard: true,
    });
  });

  it('X-Failed-Recipients or Auto-Submitted with failure words is a report, whatever the From', async () => {
    const failed = await read(`From: "Postmaster" <admin@mx.example.net>
To: sender@acme.test
Subject: Re: Our news
X-Failed-Recipients: gone@example.net
Content-Type: text/plain

Delivery has failed to these recipients: gone@example.net
550 5.1.1 User unknown
`);
    expect(failed.kind).toBe('bounce');
    const auto = await read(`From: notifications@mx.example.net
To: sender@acme.test
Subject: Re: Our news
Auto-Submitted: auto-replied
Content-Type: text/plain

Your message could not be delivered to gone@example.net: 550 No such user here.
`);
    expect(auto.kind).toBe('bounce');
  });

  it('an automatic answer without failure words stays an auto-reply; a person quoting a bounce stays a reply', async () => {
    const vacation = await read(`Return-Path: <>
From: Bob <bob@example.com>
To: sender@acme.test
Subject: Out of office: Our news
Auto-Submitted: auto-replied
Precedence: bulk
Content-Type: text/plain

I am away until Monday and will answer then.
`);
    expect(vacation.kind).toBe('auto_reply');
    const person = await read(`From: Bob <bob@example.com>
To: sender@acme.test
Subject: Re: Undeliverable: Our news
Content-Type: text/plain

Sorry, my old address gave you "user unknown"; please write to this one.
`);
    expect(person.kind).toBe('reply');
    // A person whose address looks like a list manager's, without any list header, is a person.
    const admin = await read(`From: IT <it-admin@example.com>
To: sender@acme.test
Subject: Re: Our news
Content-Type: text/plain

Our filter rejected your attachment, please send a link instead.
`);
    expect(admin.kind).toBe('reply');
  });
});
