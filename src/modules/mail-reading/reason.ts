/**
 * Decides a bounce's reason (CONTRACT §18) from what a report says about one recipient: an explicit
 * hint, the diagnostic text, the enhanced status code (RFC 3463 / RFC 5248 registry), the SMTP reply
 * code and the RFC 3464 action. The taxonomy and the order of the checks follow sisimai's (the
 * reference bounce classifier: https://libsisimai.org/en/reason/); the phrase patterns are this
 * module's own, generalised so that the same words mean the same reason whoever wrote them.
 *
 * A provider's documented code (Spectrum, Cox, GoDaddy, Orange, i.ua, Exchange resolver codes,
 * Gmail's "(state N)") is read first; then two passes, as sisimai does it:
 * 1. reasons that the text (or a status that names them exactly) decides even against another
 *    status: our sending quota, TLS, mailbox full, message too big, suspended, moved, relaying,
 *    SPF/DKIM/DMARC, unknown user, the recipient's filter, PTR, RFC compliance, the sender refused,
 *    unknown host, reputation, IP blocklists, connection and rate limits, spam;
 * 2. otherwise the status's own meaning, unless it is vague (x.0.0, x.7.1, x.3.0, x.4.x...), in which
 *    case the softer text patterns (policy, virus, security, system, network, expiry...) come first,
 *    then the status class, the reply code, the action, and finally `on_hold` (a reason was given but
 *    it is not one we know) or `undefined` (nothing to go on).
 *
 * `hard` is true only for the address-level reasons (HARD_REASONS), never from a code class alone.
 * Pure and synchronous; every pattern is compiled once, linear in the input, which is cut to 1,000
 * characters before matching.
 */
import { HARD_REASONS, type BounceReason, type ReasonInput } from './types.js';
import {
  Stage,
  STATUS_REASONS,
  TRANSIENT_STATUS_REASONS,
  VAGUE_STATUS_REASONS,
  USER_UNKNOWN,
  DOMAIN_UNKNOWN,
  PROVIDER_UNKNOWN,
  FILTERED,
  REQUIRE_PTR,
  NOT_COMPLIANT_RFC,
  SENDER_NAMED,
  REJECTED,
  HOST_UNKNOWN,
  SPAM_DETECTED,
  TOO_MANY_CONN,
  SPEEDING,
  BAD_REPUTATION,
  BLOCKED_IP,
  NETWORK_ERROR,
  FIRST_PASS_STATUS,
  UNKNOWN_WITHOUT_CONTEXT,
  FILTER_STATUS,
  SENDER_MISSING,
  TRANSIENT_DNS,
  WHITESPACE,
  SPACES,
  STATUS_TOKEN,
  SENDER_QUOTA,
  SENDER_LIMIT,
  TLS_REQUIRED,
  MAILER_PREFIX,
  NULL_MX,
  OTHER_THAN_UNKNOWN,
  FIRST_PASS,
  SECOND_PASS,
  COMMAND_STAGES,
  STAGE_PATTERNS,
  STATUS_IN_TEXT,
  REPLY_CODE_IN_TEXT,
  CONTINUATION,
  GENERIC_UNAVAILABLE,
  RFC_MAILBOX_DISABLED,
  ACCOUNT_SUSPENDED,
  ZOHO_LABEL,
} from './reason-patterns.js';
import {
  GMAIL_STATE,
  GMAIL_STATE_REASONS,
  GMAIL_STATE_STAGES,
  providerReason,
  providerStageReason,
} from './provider-codes.js';

/** The longest diagnostic read, as CONTRACT §18 stores it. */
export const MAX_DIAGNOSTIC_CHARS = 1000;

export function decideReason(input: ReasonInput): { reason: BounceReason; hard: boolean } {
  const reason = input.hint ?? pick(input);
  return { reason, hard: HARD_REASONS.has(reason) && !(reason === 'not_accept' && transient(input)) };
}

/**
 * A 4.x.x status (or, without one, a 4xx reply) says the refusal is for now. `not_accept` under it is
 * a host not taking mail at the moment (RFC 3463 X.3.2 "system not accepting network messages"), not
 * a domain that never will: soft, as sisimai has it. The address-level reasons keep their class: a
 * "4.1.1 user unknown" in a final report is a server that said so on every retry.
 */
function transient(input: ReasonInput): boolean {
  const status = normaliseStatus(input.status) ?? statusInText((input.diagnostic ?? '').toLowerCase());
  if (status) return status.startsWith('4.');
  const code = input.smtpCode ?? replyCodeInText((input.diagnostic ?? '').toLowerCase());
  return code !== null && code >= 400 && code < 500;
}

function pick(input: ReasonInput): BounceReason {
  const raw = (input.diagnostic ?? '')
    .slice(0, MAX_DIAGNOSTIC_CHARS)
    .toLowerCase()
    .replace(WHITESPACE, ' ')
    .trim();
  const text = withoutContinuations(raw).replace(ZOHO_LABEL, '');
  const status = chooseStatus(normaliseStatus(input.status), statusInText(raw));
  const code = input.smtpCode ?? replyCodeInText(raw);
  const statusReason = status ? statusMeaning(status) : null;
  const gmailState = GMAIL_STATE.exec(text)?.[1];
  const stage =
    (gmailState && GMAIL_STATE_STAGES[gmailState]) ||
    (input.command ? COMMAND_STAGES[input.command] : stageOf(text));
  const action = (input.action ?? '').toLowerCase();

  const provider =
    (gmailState && GMAIL_STATE_REASONS[gmailState]) ||
    providerReason(text) ||
    providerStageReason(text, status, stage);
  if (provider) return provider;
  const first = firstPass(text, status, statusReason, stage, code);
  if (first) return first;
  const second = secondPass(text, status, statusReason, code, action);
  if (second) return second;
  if (action.startsWith('delayed') || action.startsWith('expired')) return 'expired';
  if (stage === 'helo' || stage === 'connect') return 'blocked';
  return text ? 'on_hold' : 'undefined';
}

/** Reasons that the text (or an exact status) decides whatever else the status says. */
function firstPass(
  text: string,
  status: string | null,
  statusReason: BounceReason | null,
  stage: Stage,
  code: number | null,
): BounceReason | null {
  // Our own sending quota or TLS, whatever status the provider chose for it (Microsoft: 5.2.2
  // "Submission quota exceeded"; Gmail: 4.7.29 for TLS, ARC's code).
  if (SENDER_QUOTA.test(text)) return 'too_many_connections';
  if (SENDER_LIMIT.test(text)) return 'speeding';
  if (TLS_REQUIRED.test(text)) return 'security_error';
  // A status that names one of these exactly is taken at its word (5.2.2 with "user unknown" is
  // still a full mailbox; 5.2.3 is the mailbox's own size limit, not the system's).
  if (statusReason && FIRST_PASS_STATUS.has(statusReason)) return statusReason;
  if (MAILER_PREFIX.test(text)) return 'mailer_error';
  if (NULL_MX.test(text)) return 'not_accept';
  // 5.2.1 with only RFC 3463's words for it ("mailbox disabled") is the recipient's filter (sisimai);
  // a suspended account says so in its own words.
  if (status?.endsWith('.2.1') && RFC_MAILBOX_DISABLED.test(text) && !ACCOUNT_SUSPENDED.test(text)) {
    return 'filtered';
  }
  for (const [reason, re] of FIRST_PASS) if (re.test(text)) return reason;
  if (code === 525) return 'suspended'; // RFC 4954: user account disabled

  // The address does not exist, or the recipient's filter pretends so.
  const pre = stage === 'connect' || stage === 'helo' || stage === 'mail';
  const saysUnknown = USER_UNKNOWN.test(text) && !DOMAIN_UNKNOWN.test(text);
  // RFC 5321's generic "mailbox unavailable" is a user-unknown only where the stage or a 5.1.x
  // status says so; alone it is the recipient side refusing (sisimai: filtered).
  if (
    saysUnknown &&
    stage === null &&
    statusReason !== 'user_unknown' &&
    (status === null || status.endsWith('.0.0')) &&
    !USER_UNKNOWN.test(text.replace(GENERIC_UNAVAILABLE, ' '))
  ) {
    return 'filtered';
  }
  if (statusReason === 'rejected') return 'rejected'; // 5.1.7 / 5.1.8: our sender address
  if (
    SENDER_NAMED.test(text) &&
    REJECTED.test(text) &&
    !BAD_REPUTATION.test(text) &&
    !BLOCKED_IP.test(text)
  ) {
    return 'rejected'; // "sender address invalid" is about us, even though "address invalid" is in it
  }
  if (saysUnknown && !pre) {
    if (statusReason === 'user_unknown' || PROVIDER_UNKNOWN.test(text)) return 'user_unknown';
    if (stage === 'data') return 'filtered'; // accepted at RCPT, refused after the content
    if (stage === 'rcpt') return 'user_unknown';
    // A security/policy or mailbox-status code with "user unknown" is the recipient's filter.
    if (status && FILTER_STATUS.test(status)) return 'filtered';
    return status === null || status.endsWith('.0.0') ? UNKNOWN_WITHOUT_CONTEXT : 'user_unknown';
  }
  if (saysUnknown && stage === 'mail') return 'rejected';
  if (statusReason === 'user_unknown' && !pre && !OTHER_THAN_UNKNOWN.some((re) => re.test(text))) {
    return 'user_unknown';
  }
  if (statusReason === 'filtered' && FILTERED.test(text)) return 'filtered';
  if (!pre && FILTERED.test(text)) return 'filtered';
  if (statusReason === 'require_ptr' || REQUIRE_PTR.test(text)) return 'require_ptr';
  if (NOT_COMPLIANT_RFC.test(text)) return 'not_compliant_rfc';
  if (BAD_REPUTATION.test(text)) return 'bad_reputation';
  if (REJECTED.test(text)) return 'rejected';
  if (stage === 'mail' && (statusReason === 'user_unknown' || SENDER_MISSING.test(text))) {
    return 'rejected';
  }
  const transient = status?.startsWith('4.') || (code !== null && code >= 400 && code < 500);
  if (statusReason === 'host_unknown' && !NETWORK_ERROR.test(text)) return 'host_unknown';
  if (!transient && HOST_UNKNOWN.test(text) && !TRANSIENT_DNS.test(text)) return 'host_unknown';
  if (BLOCKED_IP.test(text)) return 'blocked';
  if (TOO_MANY_CONN.test(text)) return 'too_many_connections';
  if (SPEEDING.test(text)) return 'speeding';
  if (statusReason === 'spam_detected' || (!pre && SPAM_DETECTED.test(text))) return 'spam_detected';
  if (statusReason === 'user_unknown' && !pre) return 'user_unknown';
  if (statusReason === 'too_many_connections') return 'too_many_connections';
  if (statusReason === 'blocked') return 'blocked';
  return null;
}

/** The status's own meaning, unless it is vague; then the softer text patterns, then the class. */
function secondPass(
  text: string,
  status: string | null,
  statusReason: BounceReason | null,
  code: number | null,
  action: string,
): BounceReason | null {
  if (statusReason && !VAGUE_STATUS_REASONS.has(statusReason)) return statusReason;
  for (const [reason, re] of SECOND_PASS) if (re.test(text)) return reason;
  if (statusReason) return statusReason;
  if (status) {
    const subject = status.slice(2, 3);
    if (subject === '6') return 'content_error';
    if (subject === '7') return 'security_error';
  }
  if (code !== null) {
    if (code === 521 || code === 556) return 'not_accept'; // RFC 7504: the domain accepts no mail
    if (code >= 500 && code <= 507 && !(action.startsWith('delayed') || action.startsWith('expired'))) {
      return 'syntax_error';
    }
  }
  return null;
}

/**
 * A multi-line SMTP reply folded into one line repeats its code on every line ("550-5.7.1 ... 550-5.7.1
 * ..."): the repeats are dropped so that phrases read across the fold. The first code stays.
 */
function withoutContinuations(text: string): string {
  let seen = false;
  return text
    .replace(CONTINUATION, (m) => {
      if (!seen) {
        seen = true;
        return m;
      }
      return ' ';
    })
    .replace(SPACES, ' ');
}

/** The report's status, unless it is vague (x.0.0, a 2.x.x) and the text names a precise one. */
function chooseStatus(given: string | null, inText: string | null): string | null {
  if (given && !given.startsWith('2.') && !given.endsWith('.0.0')) return given;
  if (inText && !inText.endsWith('.0.0')) return inText;
  return given && !given.startsWith('2.') ? given : inText;
}

/** `5.1.1` from `5.1.1`, `#5.1.1`, `5.1.1 (...)`; null for anything else. */
function normaliseStatus(status: string | null | undefined): string | null {
  if (!status) return null;
  const m = STATUS_TOKEN.exec(status);
  return m ? `${m[1]}.${Number(m[2])}.${Number(m[3])}` : null;
}

/** The first specific enhanced status in the text (x.0.0 only when there is no other). */
function statusInText(text: string): string | null {
  let vague: string | null = null;
  for (const m of text.matchAll(STATUS_IN_TEXT)) {
    const s = `${m[1]}.${Number(m[2])}.${Number(m[3])}`;
    if (Number(m[2]) > 7 || m[1] === '2') continue;
    if (s.endsWith('.0.0')) vague ??= s;
    else return s;
  }
  return vague;
}

function replyCodeInText(text: string): number | null {
  const m = REPLY_CODE_IN_TEXT.exec(text);
  return m ? Number(m[1]) : null;
}

function statusMeaning(status: string): BounceReason | null {
  const [klass, subject, detail] = status.split('.');
  const key = `${subject}.${detail}`;
  if (klass === '2') return null;
  if (klass === '4' && key in TRANSIENT_STATUS_REASONS) return TRANSIENT_STATUS_REASONS[key];
  return STATUS_REASONS[key] ?? null;
}

function stageOf(text: string): Stage {
  for (const [stage, re] of STAGE_PATTERNS) if (re.test(text)) return stage;
  return null;
}
