/**
 * Reasons per mail-system family and per reason (CONTRACT §18). The mails and texts are written from
 * each family's documented report format (the vendors' documentation and the per-MTA parsers of
 * sisimai, BSD-2: Domino, MessageLabs, Verizon, InterScan MSS, Postfix, Google Workspace, Zoho,
 * Exim), RFC 3463 / RFC 5321's texts and sisimai's Sisimai::Reason::* phrase lists, never copied from
 * the corpus (whose figures, tuned and held out, are corpus.spec.ts's).
 */
import { decideReason } from './reason.js';
import { bounce } from './fixtures/test-mail.js';
import type { BounceReason, SmtpCommand } from './types.js';

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

type Case = [BounceReason, boolean, string | null, SmtpCommand | null, string];

/** [reason, hard, status, command, the remote server's words] */
const REASON_CASES: Record<string, Case[]> = {
  'generic status (X.0.0, none): the words decide': [
    [
      'user_unknown',
      true,
      '5.0.0',
      null,
      'User some.name (kijitora@example.net) not listed in Domino Directory',
    ],
    ['user_unknown', true, null, null, 'User not listed in public Name & Address Book'],
    ['user_unknown', true, '5.0.0', null, '550 - Requested action not taken: no such user here'],
    ['user_unknown', true, null, null, '550 Recipient <kijitora@example.jp> was not found in LDAP'],
    ['user_unknown', true, null, null, 'vdeliver: Invalid or unknown virtual user kijitora'],
    ['user_unknown', true, null, null, '553 sorry, no mailbox here by that name. (#5.1.1)'],
    ['system_error', false, '5.0.0', null, 'Several matches found in Domino Directory'],
  ],
  "sisimai's UserUnknown phrases, answered at RCPT": [
    ['user_unknown', true, null, 'RCPT', '550 destination server rejected recipients'],
    ['user_unknown', true, null, 'RCPT', '550 the following recipients was undeliverable'],
    ['user_unknown', true, null, 'RCPT', '550 <kijitora@example.jp> not found'],
    ['user_unknown', true, null, 'RCPT', '550 No kijitora in name directory'],
    ['user_unknown', true, null, 'RCPT', '550 RCPT <kijitora@example.jp> does not exist'],
    ['user_unknown', true, null, 'RCPT', '550 This spectator does not exist'],
    ['user_unknown', true, null, 'RCPT', '550 Recipient address rejected. (in reply to RCPT TO command)'],
  ],
  'a 4.x.x user unknown stays hard (the server said so on every retry), as sisimai has it': [
    [
      'user_unknown',
      true,
      '4.1.1',
      'RCPT',
      '450 4.1.1 <kijitora@example.jp>: Recipient address rejected: User unknown in local recipient table',
    ],
  ],
  'unknown host, not a network error': [
    [
      'host_unknown',
      true,
      '5.1.2',
      null,
      '550 5.1.2 <kijitora@example.jp>... Host unknown (Name server: example.jp: host not found)',
    ],
    [
      'host_unknown',
      true,
      '5.4.4',
      null,
      'Host or domain name not found. Name service error for name=example.jp type=A: Host not found',
    ],
    ['host_unknown', true, '5.0.0', null, 'all relevant MX records point to non-existent hosts'],
    ['host_unknown', true, '5.0.0', null, 'all host address lookups failed permanently'],
    ['host_unknown', true, '5.0.0', null, '550 Host unreachable'],
    ['host_unknown', true, null, null, '550 Recipient address rejected: unknown domain name'],
    [
      'network_error',
      false,
      '4.4.3',
      null,
      'Host or domain name not found. Name service error for name=example.jp type=MX: Host not found, try again',
    ],
  ],
  'not accept: hard under 5.x.x, soft under 4.x.x (a host refusing for now)': [
    ['not_accept', true, '5.1.10', null, '556 5.1.10 Recipient address has null MX'],
    ['not_accept', true, '5.0.0', null, 'Host does not accept mail'],
    ['not_accept', true, '5.0.0', null, '550 Mail receiving disabled'],
    ['not_accept', true, null, null, '550 No MX record found for domain=example.jp'],
    [
      'not_accept',
      false,
      '4.0.0',
      null,
      "DNS type 'mx' lookup of example.org responded with code NOERROR The domain example.org doesn't receive email according to the administrator: returned Null MX",
    ],
    ['not_accept', false, '4.3.2', null, '421 4.3.2 System not accepting network messages'],
  ],
  'require_ptr is sender side under any class': [
    [
      'require_ptr',
      false,
      '4.7.1',
      null,
      '450 4.7.1 Client host rejected: cannot find your hostname, [192.0.2.1]',
    ],
    [
      'require_ptr',
      false,
      '5.7.1',
      null,
      '550 5.7.1 Client host rejected: cannot find your reverse hostname',
    ],
    ['require_ptr', false, '4.0.0', null, '451 4.0.0 Reverse DNS lookup failed for host 192.0.2.1'],
  ],
  'filtered: the recipient side refusing, not an unknown user': [
    [
      'filtered',
      false,
      '5.2.1',
      'DATA',
      '550 5.2.1 <kijitora@example.jp>... Mailbox disabled for this recipient',
    ],
    ['filtered', false, '5.0.0', 'DATA', '550 Unknown user kijitora@example.jp'],
    ['filtered', false, '5.2.0', null, '550 5.2.0 user unknown'],
    [
      'filtered',
      false,
      '5.7.1',
      null,
      '554 5.7.1 <kijitora@example.jp>: Recipient address rejected: user unknown',
    ],
    ['filtered', false, null, null, 'Requested action not taken: mailbox unavailable'],
    ['filtered', false, null, null, 'Cannot route mail to user (kijitora@example.net)'],
    ['filtered', false, null, null, '550 5.1.2 User reject'],
    ['filtered', false, null, null, 'refused due to recipient preferences'],
  ],
  'RFC 5321\'s "mailbox unavailable" is an unknown user at RCPT or with 5.1.x': [
    ['user_unknown', true, '5.2.1', 'RCPT', '550 5.2.1 Mailbox unavailable'],
    ['user_unknown', true, '5.1.1', null, '550 5.1.1 Requested action not taken: mailbox unavailable'],
  ],
  'suspended: the account in its own words, never an unknown user': [
    ['suspended', false, '5.2.1', null, '550 5.2.1 The email account that you tried to reach is disabled.'],
    ['suspended', false, '5.0.0', null, '550 kijitora@example.jp is a deactivated mailbox'],
    ['suspended', false, null, null, 'recipient suspend the service'],
    ['suspended', false, null, null, 'vdelivermail: account is locked email bounced'],
    [
      'suspended',
      false,
      '5.2.1',
      null,
      '550 5.2.1 <kijitora@example.jp>: Recipient address rejected: Mailbox currently suspended',
    ],
    ['suspended', false, null, null, '550 Invalid/inactive user'],
  ],
  'list software (fml and the like)': [
    ['rejected', false, null, null, 'You are not a member of this mailing list <list@lists.example.org>.'],
    ['rejected', false, null, null, 'NOT MEMBER article from sender@acme.test'],
    ['security_error', false, null, null, 'Security alert: sender@acme.test'],
    ['system_error', false, null, null, 'Duplicated Message-ID in <orig@acme.test>.'],
    ['system_error', false, null, null, 'list@lists.example.org has detected a loop condition so that'],
  ],
  "Zoho: its label is not the remote server's words": [
    [
      'expired',
      false,
      null,
      null,
      '[Status: Error, Address: <kijitora@example.jp>, ResponseCode 421, , Host not reachable.]',
    ],
    [
      'filtered',
      false,
      null,
      null,
      'Invalid Address, ERROR_CODE :550, ERROR_CODE :Requested action not taken: mailbox unavailable',
    ],
    [
      'user_unknown',
      true,
      null,
      null,
      'Invalid Address, ERROR_CODE :550, ERROR_CODE :5.1.1 <kijitora@example.co.jp>... User Unknown',
    ],
  ],
};

describe('reasons by reason family (decideReason)', () => {
  for (const [family, cases] of Object.entries(REASON_CASES)) {
    it(family, () => {
      const got = cases.map(([, , status, command, diagnostic]) => {
        const r = decideReason({
          status,
          smtpCode: null,
          diagnostic,
          action: 'failed',
          ...(command ? { command } : {}),
        });
        return [r.reason, r.hard, diagnostic];
      });
      expect(got).toEqual(cases.map(([reason, hard, , , diagnostic]) => [reason, hard, diagnostic]));
    });
  }
});
