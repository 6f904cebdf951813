/** decideReason on the words other mail systems write. */
import { decideReason } from './reason.js';
import type { BounceReason, ReasonInput } from './types.js';

/** One recipient as a report states it; `action` failed unless given. */
function input(
  diagnostic: string | null,
  status: string | null = null,
  smtpCode: number | null = null,
): ReasonInput {
  return { status, smtpCode, diagnostic, action: 'failed' };
}

const reasonOf = (i: ReasonInput): BounceReason => decideReason(i).reason;

describe('decideReason: words other mail systems write', () => {
  // [expected reason, smtp code, diagnostic]: the status is left for decideReason to find in the text.
  const cases: ReadonlyArray<readonly [BounceReason, number | null, string]> = [
    // Gmail / Google Workspace
    [
      'user_unknown',
      550,
      "550-5.1.1 The email account that you tried to reach does not exist. Please try double-checking the recipient's email address for typos or unnecessary spaces. Learn more at https://support.google.com/mail/?p=NoSuchUser - gsmtp",
    ],
    [
      'mailbox_full',
      552,
      '552-5.2.2 The email account that you tried to reach is over quota. Please direct the recipient to https://support.google.com/mail/?p=OverQuotaPerm',
    ],
    ['suspended', 550, '550-5.2.1 The email account that you tried to reach is disabled.'],
    [
      'speeding',
      450,
      '450-4.2.1 The user you are trying to contact is receiving mail at a rate that prevents additional messages from being delivered.',
    ],
    [
      'auth_failure',
      550,
      '550-5.7.26 This message does not pass authentication checks (SPF and DKIM both do not pass). SPF check for [example.com] does not pass with ip: [192.0.2.1].',
    ],
    [
      'auth_failure',
      550,
      "550-5.7.26 Unauthenticated email from example.com is not accepted due to domain's DMARC policy.",
    ],
    ['require_ptr', 550, '550-5.7.25 The IP address sending this message does not have a PTR record setup.'],
    [
      'bad_reputation',
      550,
      '550-5.7.1 Our system has detected that this message is likely suspicious due to the very low reputation of the sending IP address.',
    ],
    [
      'not_compliant_rfc',
      550,
      '550-5.7.1 This message is not RFC 5322 compliant. There are multiple Subject headers.',
    ],
    [
      'policy_violation',
      552,
      '552-5.7.0 This message was blocked because its content presents a potential security issue.',
    ],
    ['blocked', 421, '421-4.7.0 IP not in whitelist for RCPT domain, closing connection.'],
    [
      'blocked',
      421,
      '421-4.7.28 Gmail has detected an unusual rate of unsolicited mail originating from your IP address. To protect our users from spam, mail has been temporarily rate limited.',
    ],
    [
      'no_relaying',
      550,
      "550-5.7.1 The IP you're using to send mail is not authorized to send email directly to our servers.",
    ],
    ['not_compliant_rfc', 550, '550-5.7.1 Messages missing a valid Message-ID: header are not accepted.'],
    ['rejected', 550, '550-5.7.0 Mail Sending denied. This error occurs if the sender account is disabled.'],
    ['security_error', 421, "421-4.7.29 This mail has been rate limited because TLS wasn't used."],
    ['speeding', 450, '450-4.2.1 The user you are trying to contact is receiving mail too quickly.'],
    ['speeding', 550, '550-5.4.5 Daily user sending limit exceeded.'],
    ['mailbox_full', 452, "452-4.2.2 The recipient's inbox is out of storage space."],
    ['system_error', 421, '421-4.3.0 Temporary System Problem. Try again later.'],
    // Outlook / Microsoft 365 / Exchange
    ['user_unknown', 550, '550 5.5.0 Requested action not taken: mailbox unavailable'],
    [
      'user_unknown',
      550,
      '550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup',
    ],
    [
      'auth_failure',
      550,
      '550 5.7.515 Access denied, sending domain example.com does not meet the required authentication level.',
    ],
    [
      'blocked',
      550,
      '550 5.7.606 Access denied, banned sending IP [192.0.2.1]. To request removal from this list...',
    ],
    [
      'bad_reputation',
      451,
      '451 4.7.650 The mail server [192.0.2.1] has been temporarily rate limited due to IP reputation.',
    ],
    ['message_too_big', 550, '550 5.2.3 RESOLVER.RST.RecipSizeLimit; message too large for this recipient'],
    ['user_unknown', 550, '550 5.4.1 Recipient address rejected: Access denied. AS(201806281)'],
    [
      'blocked',
      550,
      '550 5.7.513 Service unavailable, Client host [192.0.2.1] blocked by example.com using Customer Block list',
    ],
    ['blocked', 550, '550 5.7.506 Access denied, Bad HELO'],
    ['rejected', 550, '550 5.7.134 Sender was not authenticated for mailbox'],
    ['rejected', 550, '550 5.7.124 Sender not in allowed-senders list'],
    ['speeding', 554, '554 5.2.2 Submission quota exceeded'],
    ['speeding', 550, "550 5.2.121 Recipient's per hour message receive limit from specific sender exceeded"],
    [
      'security_error',
      451,
      '451 4.4.317 Cannot connect to remote server [Message=451 5.7.3 STARTTLS is required to send mail]',
    ],
    ['system_error', 451, '451 4.7.500 Server busy. Please try again later from [192.0.2.1]. (AS761)'],
    ['spam_detected', 550, '550 5.2.1 Content Filter agent quarantined this message'],
    ['not_compliant_rfc', 550, '550 5.7.512 Access denied, message must be RFC 5322 section 3.6.2 compliant'],
    // Yahoo / AOL
    [
      'bad_reputation',
      421,
      '421 4.7.0 [TSS04] Messages from 192.0.2.1 temporarily deferred due to unexpected volume or user complaints - 4.16.55.1',
    ],
    [
      'policy_violation',
      554,
      '554 5.7.9 Message not accepted for policy reasons. See https://senders.yahooinc.com/error-codes',
    ],
    [
      'user_unknown',
      554,
      "554 delivery error: dd This user doesn't have a yahoo.com account (x@yahoo.com) [0]",
    ],
    [
      'rejected',
      553,
      '553 5.7.2 [TSS09] All messages from 192.0.2.1 will be permanently deferred; Retrying will NOT succeed.',
    ],
    [
      'suspended',
      554,
      '554 delivery error: dd x@yahoo.com is no longer valid. [-20] - mta1234.mail.bf1.yahoo.com',
    ],
    ['too_many_connections', 421, '421 Max message per connection reached, closing transmission channel'],
    [
      'auth_failure',
      550,
      '550 5.7.9 This mail has been blocked because the sender is unauthenticated. Yahoo requires all senders to authenticate with either SPF or DKIM.',
    ],
    // Apple iCloud, Mimecast
    ['speeding', 421, '421 4.7.1 Messages to x@icloud.com deferred due to excessive volume. Try again later'],
    ['user_unknown', 550, '550 5.1.1 <x@icloud.com>: inactive email address (in reply to RCPT TO command)'],
    ['policy_violation', 550, '550 5.7.1 [CS01] Message rejected due to local policy.'],
    ['message_too_big', 554, '554 Maximum email size exceeded'],
    ['rejected', 550, '550 Rejected by header-based Blocked Senders - Block policy for Header From'],
    ['security_error', 553, '553 This route requires encryption (TLS)'],
    ['network_error', 554, '554 Mail loop detected'],
    // Spamhaus & co: "spam" inside a blocklist's name is the IP, not the content
    [
      'blocked',
      554,
      '554 5.7.1 Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org; https://www.spamhaus.org/query/ip/192.0.2.1',
    ],
    ['blocked', 550, '550 5.7.1 Mail from 192.0.2.1 refused: listed in bl.spamcop.net'],
    ['spam_detected', 554, '554 5.7.1 Message rejected as spam by Content Filtering'],
    // Postfix, Exim, Sendmail, qmail
    [
      'user_unknown',
      550,
      '550 5.1.1 <x@example.com>: Recipient address rejected: User unknown in virtual mailbox table',
    ],
    ['rejected', 553, '553 5.1.8 <bounce@example.com>: Sender address rejected: Domain not found'],
    [
      'rejected',
      550,
      'Connected to 192.0.2.225 but sender was rejected. Remote host said: 550 5.7.1 Access denied',
    ],
    ['no_relaying', 554, '554 5.7.1 <x@example.org>: Relay access denied'],
    ['message_too_big', 552, '552 5.3.4 Message size exceeds fixed limit'],
    ['exceed_limit', 552, '552 5.2.3 Message size exceeds fixed maximum message size (10485760)'],
    ['too_many_connections', 421, '421 4.7.0 Too many connections from your host, try again later'],
    ['too_many_connections', 421, '421 4.4.5 Too many concurrent SMTP connections from this IP address'],
    ['virus_detected', 550, '550 5.7.1 Message rejected: virus detected (Eicar-Test-Signature)'],
    ['expired', null, 'Message delivery has timed out; retry time exceeded'],
    ['expired', 451, '451 4.4.7 Delivery time expired'],
    ['network_error', null, 'connect to mx.example.com[192.0.2.1]:25: Connection refused'],
    ['network_error', 554, '554 5.4.6 Too many hops'],
    [
      'host_unknown',
      null,
      'Host or domain name not found. Name service error for name=example.invalid type=A: Host not found',
    ],
    ['not_accept', 556, '556 5.1.10 Recipient address has null MX'],
    ['security_error', 530, '530 5.7.0 Must issue a STARTTLS command first'],
    ['policy_violation', 550, '550 5.7.1 Message rejected due to local policy'],
    ['suspended', 550, '550 5.2.1 Account disabled'],
    ['mailbox_full', 550, '550 5.7.1 mailbox is full'],
    ['mailbox_full', 550, '550 5.2.2 Mailbox quota exceeded for this recipient'],
    ['mailer_error', null, 'procmail: Couldn\'t create "/var/spool/mail/neko"'],
    ['rejected', 550, '550 Sender address invalid'],
    ['host_unknown', 550, '550 Recipient domain does not exist'],
    ['host_unknown', 550, '550 Mail domain mentioned in email address is unknown'],
    ['network_error', null, 'Unrouteable mail domain example.invalid'],
    ['too_many_connections', 454, '454 Throttling failure: Daily message quota exceeded.'],
    [
      'blocked',
      421,
      'delivery temporarily suspended: connect to mx.example.com[192.0.2.1]: server refused to talk to me: 421 Service not available, closing transmission channel',
    ],
    ['content_error', 552, '552 Message header size, or recipient list, exceeds policy limit'],
    ['user_unknown', 550, '550 5.1.1 User john.doe is unknown'],
    ['has_moved', 550, '550 5.1.6 Recipient no longer on server: x@example.com'],
    ['blocked', 451, '451 4.7.1 Greylisted, please try again in 300 seconds'],
    ['mailer_error', 451, '451 4.0.0 Operating system error'],
    // Localised
    ['user_unknown', 550, '550 5.1.1 Benutzer unbekannt / Empfänger existiert nicht'],
    ['mailbox_full', 552, '552 5.2.2 Postfach voll'],
    [
      'user_unknown',
      550,
      '550 5.1.1 Adresse d au moins un destinataire invalide. Invalid recipient. OFR_416 [416]',
    ],
    ['mailbox_full', 552, '552 5.1.1 Boite du destinataire pleine. Recipient overquota. OFR_417 [417]'],
    ['user_unknown', 550, '550 5.1.1 このメールアドレスは存在しないユーザです'],
    ['mailbox_full', 552, '552 Boîte aux lettres pleine'],
    ['user_unknown', 550, '550 Destinataire introuvable'],
    ['suspended', 550, '550 Compte désactivé'],
    ['user_unknown', 550, '550 Usuario desconocido'],
    ['mailbox_full', 552, '552 Buzón lleno'],
    ['user_unknown', 550, '550 Utente sconosciuto'],
    ['user_unknown', 550, '550 Usuário desconhecido'],
    ['user_unknown', 550, '550 Пользователь не найден'],
    ['mailbox_full', 552, '552 Почтовый ящик переполнен'],
    ['user_unknown', 550, '550 宛先不明'],
    ['mailbox_full', 552, '552 メールボックスの容量がいっぱいです'],
    ['user_unknown', 550, '550 该用户不存在'],
    ['mailbox_full', 552, '552 邮箱已满'],
    // Providers' own codes
    [
      'speeding',
      550,
      '550 5.1.1 <x@example.com> - 192.0.2.1 has sent to too many recipients this hour. IB607',
    ],
    ['blocked', 550, '550 5.1.0 <b@example.com> sender rejected. Refer to Error Codes section. AUP#CDRBL'],
    [
      'too_many_connections',
      550,
      '550 5.1.0 <b@example.com> sender rejected. Please see spectrum.net. AUP#In-1310',
    ],
  ];

  it.each(cases)('%s from %s %s', (expected, code, diagnostic) => {
    expect(reasonOf(input(diagnostic, null, code))).toBe(expected);
  });
});
