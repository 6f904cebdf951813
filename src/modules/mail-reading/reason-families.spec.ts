/**
 * Reasons per mail-system family (CONTRACT §18), read from whole reports. The mails are written from
 * each family's documented report format (the vendors' documentation and the per-MTA parsers of
 * sisimai, BSD-2: Domino, MessageLabs, Verizon, InterScan MSS, Postfix, Google Workspace, Zoho,
 * Exim), never copied from the corpus (whose figures, tuned and held out, are corpus.spec.ts's).
 * The same decisions per reason, from the remote server's words alone, are reason-by-reason.spec.ts's.
 */
import { bounce } from './fixtures/test-mail.js';
import type { BounceReason } from './types.js';

const MAILS: Readonly<Record<string, string>> = {
  'ezweb.eml': `From: <Postmaster@ezweb.ne.jp>
To: sender@acme.test
Subject: Mail System Error - Returned Mail
Message-ID: <ez-1@wsmtpr.ezweb.ne.jp>
X-SPASIGN: NG
Content-Type: text/plain

<kijitora@ezweb.ne.jp>

Each of the following recipients was rejected by a remote mail server.
`,
  'notes.eml': `From: Postmaster@notes.example.jp
To: sender@acme.test
Subject: Undeliverable message
Message-ID: <notes-1@notes.example.jp>
Content-Type: text/plain; charset=us-ascii

------- Failure Reasons  --------

User not listed in public Name & Address Book
kijitora@notes.example.jp

------- Returned Message --------
From: sender@acme.test
To: kijitora@notes.example.jp
Subject: Our news
Message-ID: <orig-5@acme.test>

Hello
`,
  'notes-hop.eml': `From: Postmaster@notes.example.jp
To: sender@acme.test
Subject: Undeliverable message
Message-ID: <notes-2@notes.example.jp>
Content-Type: text/plain; charset=us-ascii

------- Failure Reasons  --------

Message has exceeded maximum hop count
kijitora@notes.example.jp

------- Returned Message --------
From: sender@acme.test
To: kijitora@notes.example.jp
Subject: Our news
`,
  'domino-route.eml': `From: Postmaster@notes.example.net
To: sender@acme.test
Subject: DELIVERY FAILURE: Cannot route mail to user (kijitora@example.net)
Message-ID: <dom-2@notes.example.net>
Content-Type: text/plain; charset=us-ascii

Your message

  Subject: Our news

was not delivered to:

  kijitora@example.net

because:

  Cannot route mail to user (kijitora@example.net)
`,
  'domino.eml': `From: Postmaster@notes.example.net
To: sender@acme.test
Subject: DELIVERY FAILURE: User some.name (kijitora@example.net) not listed in Domino Directory
Message-ID: <dom-1@notes.example.net>
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="D"

--D
Content-Type: text/plain; charset=us-ascii

Your message

  Subject: Our news

was not delivered to:

  kijitora@example.net

because:

  User some.name (kijitora@example.net) not listed in Domino Directory

--D
Content-Type: message/rfc822

From: sender@acme.test
To: kijitora@example.net
Subject: Our news
Message-ID: <orig-1@acme.test>

Hello
--D--
`,
  'exim-mx.eml': `From: Mail Delivery System <Mailer-Daemon@mx.acme.test>
To: sender@acme.test
Subject: Mail delivery failed: returning message to sender
X-Failed-Recipients: kijitora@example.jp
Auto-Submitted: auto-replied
Message-ID: <ex-1@mx.acme.test>
Content-Type: text/plain

This message was created automatically by mail delivery software.

A message that you sent could not be delivered to one or more of its
recipients. This is a permanent error. The following address(es) failed:

  kijitora@example.jp
    all relevant MX records point to non-existent hosts
`,
  'gsuite.eml': `From: Mail Delivery Subsystem <mailer-daemon@googlemail.com>
To: sender@acme.test
Subject: Delivery Status Notification (Failure)
X-Gm-Message-State: abc
Message-ID: <gs-1@mail.gmail.com>
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="G"

--G
Content-Type: text/plain; charset=UTF-8

** Address not found **

Your message wasn't delivered to kijitora@example.jp because the address couldn't be found. Check for typos or unnecessary spaces and try again.

The response from the remote server was:
550 #5.1.0 Address rejected.

--G
Content-Type: message/delivery-status

Reporting-MTA: dns; googlemail.com

Final-Recipient: rfc822; kijitora@example.jp
Action: failed
Status: 5.0.0
Remote-MTA: dns; mx.example.jp. (192.0.2.1, the server for the domain example.jp.)
Diagnostic-Code: smtp; 550 #5.1.0 Address rejected.

--G--
`,
  'interscan.eml': `From: "InterScan MSS" <root@imss.example.co.jp>
To: sender@acme.test
Subject: Mail could not be delivered
Message-ID: <imss-1@imss.example.co.jp>
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="I"

--I
Content-Type: text/plain

The message could not be delivered.

Sent <<< RCPT TO:<kijitora@example.co.jp>
Received >>> 550 5.1.1 <kijitora@example.co.jp>... user unknown

--I
Content-type: message/rfc822

From: sender@acme.test
To: kijitora@example.co.jp
Message-ID: <orig-3@acme.test>

--I--
`,
  'messagelabs.eml': `From: Mail Delivery System <MAILER-DAEMON@messagelabs.com>
To: sender@acme.test
Subject: Mail Delivery Failure
X-Msg-Ref: server-1.tower-2.messagelabs.com!1400000000!100000!1
Message-ID: <ml-1@messagelabs.com>
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="M"

--M
Content-Type: text/plain

This is an automatically generated message from MessageLabs.
Delivery to the following recipients failed permanently.

--M
Content-Type: message/delivery-status

Reporting-MTA: dns; server-1.tower-2.messagelabs.com

Final-Recipient: rfc822; kijitora@example.com
Action: failed
Status: 5.0.0
Diagnostic-Code: smtp; 542 kijitora@example.com Rejected

--M
Content-Type: text/rfc822-headers

From: sender@acme.test
To: kijitora@example.com
Message-ID: <orig-2@acme.test>

--M--
`,
  'postfix.eml': `From: MAILER-DAEMON@mx.acme.test (Mail Delivery System)
To: sender@acme.test
Subject: Undelivered Mail Returned to Sender
Message-ID: <pf-1@mx.acme.test>
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="P"

--P
Content-Type: text/plain

This is the mail system at host mx.acme.test.

<kijitora@example.jp>: host mx.example.jp[192.0.2.1] said: 550 <kijitora@example.jp>: User unknown

--P
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.acme.test

Final-Recipient: rfc822; kijitora@example.jp
Action: failed
Status: 5.0.0
Diagnostic-Code: smtp; 550 <kijitora@example.jp>: User unknown

--P--
`,
  'vtext.eml': `From: post_master@vtext.com
To: sender@acme.test
Subject: Undeliverable Message
Message-ID: <vz-1@vtext.com>
Content-Type: text/plain

Error: 550 - Requested action not taken: no such user here

Message details:
  Subject: Our news
  Sent date: Wed Jun 12 02:21:53 GMT 2013
  MAIL FROM: sender@acme.test
  RCPT TO: 5555555555@vtext.com
`,
  'vzwpix.eml': `From: sysadmin@vzwpix.com
To: sender@acme.test
Subject: Message could not be delivered
Message-ID: <vz-2@vzwpix.com>
Content-Type: text/plain

Message could not be delivered to mobile.
Error: No valid recipients for this MM

Original Message:
From: sender@acme.test
To: 5555555555@vzwpix.com
Subject: Our news
`,
  'zoho.eml': `From: mailer-daemon@mail.zoho.com
To: sender@acme.test
Subject: Undelivered Mail Returned to Sender
X-ZohoMail: Si CHF_MF_NL SS_10
Message-ID: <zo-1@mail.zoho.com>
Content-Type: text/plain

This message was created automatically by mail delivery software.
A message that you sent could not be delivered to one or more of its recipients. This is a permanent error.

kijitora@example.co.jp Invalid Address, ERROR_CODE :550, ERROR_CODE :5.1.1 <kijitora@example.co.jp>... User Unknown
shironeko@example.org Invalid Address, ERROR_CODE :550, ERROR_CODE :Requested action not taken: mailbox unavailable
`,
};

describe('reasons by mail-system family (whole reports)', () => {
  it.each<[string, string, Array<[string, BounceReason, boolean]>]>([
    [
      'Lotus Domino: "not listed in Domino Directory" under no status is an unknown user',
      'domino.eml',
      [['kijitora@example.net', 'user_unknown', true]],
    ],
    [
      'Lotus Domino: "Cannot route mail to user" is the recipient side refusing (filtered), not an unknown user',
      'domino-route.eml',
      [['kijitora@example.net', 'filtered', false]],
    ],
    [
      'Symantec MessageLabs: a bare 5.0.0 with "542 <addr> Rejected" is its unknown-user answer',
      'messagelabs.eml',
      [['kijitora@example.com', 'user_unknown', true]],
    ],
    [
      'Verizon vtext: "no such user here" after the Error: line, the address from RCPT TO',
      'vtext.eml',
      [['5555555555@vtext.com', 'user_unknown', true]],
    ],
    [
      'Verizon vzwpix: "No valid recipients for this MM"',
      'vzwpix.eml',
      [['5555555555@vzwpix.com', 'user_unknown', true]],
    ],
    [
      'Trend Micro InterScan MSS: its Sent <<< / Received >>> transcript',
      'interscan.eml',
      [['kijitora@example.co.jp', 'user_unknown', true]],
    ],
    [
      'Postfix: "User unknown" with a bare 5.0.0 Status',
      'postfix.eml',
      [['kijitora@example.jp', 'user_unknown', true]],
    ],
    [
      'Google Workspace: "the address couldn\'t be found" with 5.0.0 and the remote\'s #5.1.0',
      'gsuite.eml',
      [['kijitora@example.jp', 'user_unknown', true]],
    ],
    [
      'Zoho: its "Invalid Address" label is dropped, the remote server\'s words decide',
      'zoho.eml',
      [
        ['kijitora@example.co.jp', 'user_unknown', true],
        ['shironeko@example.org', 'filtered', false],
      ],
    ],
    [
      'Exim: all MX records pointing to non-existent hosts is an unknown host',
      'exim-mx.eml',
      [['kijitora@example.jp', 'host_unknown', true]],
    ],
    [
      'Lotus Notes: the reason above the address under "Failure Reasons"',
      'notes.eml',
      [['kijitora@notes.example.jp', 'user_unknown', true]],
    ],
    [
      'Lotus Notes: a hop-count loop is a network error',
      'notes-hop.eml',
      [['kijitora@notes.example.jp', 'network_error', false]],
    ],
    [
      "au EZweb: its spam filter's X-SPASIGN: NG mark is the recipient's filter",
      'ezweb.eml',
      [['kijitora@ezweb.ne.jp', 'filtered', false]],
    ],
  ])('%s', async (_title, file, expected) => {
    const recipients = await bounce(MAILS[file]);
    expect(recipients.map((r) => [r.address, r.reason, r.hard])).toEqual(expected);
  });
});
