/**
 * Reasons per reason family (CONTRACT §18): decideReason on the remote server's words, status and SMTP
 * command alone. The texts are written from RFC 3463 / RFC 5321's texts, the vendors' documented
 * replies and sisimai's Sisimai::Reason::* phrase lists (BSD-2), never copied from the corpus (whose
 * figures, tuned and held out, are corpus.spec.ts's). Whole reports per mail-system family are
 * reason-families.spec.ts's.
 */
import { decideReason } from './reason.js';
import type { BounceReason, SmtpCommand } from './types.js';

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
