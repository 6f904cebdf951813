/**
 * Decides a bounce's reason (CONTRACT §18) from what a report says about one recipient. First version.
 */
import { HARD_REASONS, type BounceReason, type ReasonInput } from './types.js';

const TEXT_RULES: ReadonlyArray<readonly [BounceReason, RegExp]> = [
  [
    'mailbox_full',
    /mailbox (?:is )?full|over ?quota|quota exceeded|exceeded (?:the|its|storage) ?quota|insufficient (?:disk )?space/,
  ],
  [
    'user_unknown',
    /user unknown|unknown user|no such (?:user|mailbox|recipient)|unknown recipient|recipient (?:address )?rejected|does not exist|doesn't exist|invalid recipient|mailbox unavailable|mailbox not found/,
  ],
  [
    'suspended',
    /account (?:is )?(?:disabled|suspended|inactive)|mailbox (?:is )?(?:disabled|inactive|suspended)/,
  ],
  [
    'host_unknown',
    /domain not found|host unknown|unknown host|host not found|no mx|name or service not known/,
  ],
  ['auth_failure', /\b(?:spf|dkim|dmarc)\b/],
  ['require_ptr', /reverse dns|\bptr\b|rdns/],
  ['no_relaying', /relay(?:ing)? (?:access )?denied|not permitted to relay|unable to relay/],
  [
    'message_too_big',
    /message (?:is )?too (?:large|big)|size limit|exceeds? (?:the )?(?:maximum )?(?:message )?size/,
  ],
  ['too_many_connections', /too many connections/],
  ['speeding', /rate limit|too many (?:messages|emails)|try again later/],
  ['virus_detected', /virus/],
  ['blocked', /blocked|spamhaus|\brbl\b|blacklist|blocklist|denylist/],
  ['spam_detected', /\bspam\b/],
  ['policy_violation', /\bpolicy\b/],
  ['expired', /timeout|timed out|expired|retry time|too long/],
  ['network_error', /connection refused|network (?:is )?unreachable|no route to host/],
];

const STATUS_RULES: Readonly<Record<string, BounceReason>> = {
  '1.1': 'user_unknown',
  '1.2': 'host_unknown',
  '1.6': 'has_moved',
  '1.10': 'not_accept',
  '2.1': 'suspended',
  '2.2': 'mailbox_full',
  '3.4': 'message_too_big',
  '4.7': 'expired',
  '7.1': 'rejected',
  '7.25': 'require_ptr',
  '7.26': 'auth_failure',
  '7.27': 'auth_failure',
};

export function decideReason(input: ReasonInput): { reason: BounceReason; hard: boolean } {
  const reason = pick(input);
  return { reason, hard: HARD_REASONS.has(reason) };
}

function pick(input: ReasonInput): BounceReason {
  if (input.hint) return input.hint;
  const text = (input.diagnostic ?? '').slice(0, 1000).toLowerCase();
  if (text) for (const [reason, re] of TEXT_RULES) if (re.test(text)) return reason;
  const m = input.status ? /^[245]\.(\d{1,3}\.\d{1,3})$/.exec(input.status.trim()) : null;
  if (m && STATUS_RULES[m[1]]) return STATUS_RULES[m[1]];
  return 'undefined';
}
