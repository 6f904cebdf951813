/**
 * Providers' own error codes, as their postmaster pages document them (Spectrum, Cox, GoDaddy,
 * Orange / La Poste, i.ua, Microsoft Exchange resolver codes, au/KDDI, NTT docomo, Gmail's
 * "(state N)"). A code names the reason more precisely than the words around it, so decideReason
 * (reason.ts) reads these before its two passes. The choice of providers and the reason each code
 * maps to follow sisimai's provider modules (the reference bounce classifier,
 * https://libsisimai.org, BSD-2 licence); the tables are transcribed from the providers' pages.
 */
import type { BounceReason } from './types.js';
import { DOCOMO_UNKNOWN, type Rule, type Stage } from './reason-patterns.js';

/** Gmail's older bounces end with "(state N)", the step of its SMTP client that failed. */
export const GMAIL_STATE = /\(state (\d{1,2})\)/;
export const GMAIL_STATE_REASONS: Readonly<Record<string, BounceReason>> = {
  '6': 'system_error', // the remote server does not support TLS
  '8': 'system_error', // SMTP AUTH failed with the remote server
  '9': 'system_error', // TLS certificate problem
  '12': 'no_relaying', // the remote server does not support authenticated relay
  '15': 'filtered', // refused after DATA
  '17': 'filtered',
  '18': 'filtered',
};
export const GMAIL_STATE_STAGES: Readonly<Record<string, Exclude<Stage, null>>> = {
  '13': 'helo',
  '14': 'rcpt',
};

/** Spectrum / Charter: `AUP#In-1310` (spectrum.net "understanding email error codes"). */
const SPECTRUM_CODE = /aup#[a-z]*-?(\d{4})\b/;
const SPECTRUM_RANGES: ReadonlyArray<readonly [number, number, BounceReason]> = [
  [1000, 1000, 'blocked'], // IP blocked for suspicious activity
  [1010, 1080, 'rejected'], // the sending account is limited or blocked
  [1090, 1090, 'system_error'],
  [1100, 1150, 'blocked'], // the connecting IP's DNS
  [1160, 1190, 'policy_violation'], // against the domain's security policies
  [1200, 1250, 'blocked'], // Cloudmark CSI, Spamhaus
  [1260, 1260, 'network_error'], // IPv6 not processed
  [1300, 1490, 'too_many_connections'], // connection, message and recipient limits
  [1500, 1520, 'rejected'], // sending as another address or domain
  [1530, 1530, 'message_too_big'],
  [1540, 1550, 'too_many_connections'],
  [1560, 1560, 'policy_violation'], // too many invalid recipients
];

/** Cox: `AUP#CXBL` (cox.com "email error codes"). */
const COX_CODE = /aup#(cxbl|cdrbl|cxdns|ipbl\d+|cxthrt|cxmj|cxsndr|cxsmtp|cxcnct|cxmxrt|urlbl\d+)\b/;
const COX_REASONS: Readonly<Record<string, BounceReason>> = {
  cxbl: 'blocked',
  cdrbl: 'blocked',
  cxdns: 'blocked',
  cxthrt: 'security_error',
  cxmj: 'security_error',
  cxsndr: 'rejected',
  cxsmtp: 'rejected',
  cxcnct: 'too_many_connections',
  cxmxrt: 'too_many_connections',
};

/** GoDaddy: `IB607` (godaddy.com "what does my email bounceback mean"). */
const GODADDY_CODE = /\bib(\d{3})\b/;
const GODADDY_REASONS: Readonly<Record<string, BounceReason>> = {
  '007': 'too_many_connections',
  '101': 'expired',
  '103': 'blocked',
  '104': 'blocked',
  '105': 'blocked',
  '106': 'blocked',
  '108': 'require_ptr',
  '110': 'blocked',
  '111': 'blocked',
  '112': 'blocked',
  '113': 'blocked',
  '212': 'spam_detected',
  '401': 'security_error',
  '501': 'rejected',
  '502': 'rejected',
  '504': 'speeding',
  '506': 'rejected',
  '508': 'auth_failure',
  '510': 'too_many_connections',
  '607': 'speeding',
  '705': 'virus_detected',
};

/** Orange / La Poste: `OFR_416`, `LPN007_426` (the number after the underscore). */
const ORANGE_CODE = /\b(?:ofr|lpn|ouk)[0-9a-z]*_(\d{3})\b/;
const ORANGE_REASONS: Readonly<Record<string, BounceReason>> = {
  '101': 'blocked',
  '102': 'blocked',
  '103': 'blocked',
  '104': 'too_many_connections',
  '105': 'undefined',
  '107': 'undefined',
  '108': 'undefined',
  '109': 'undefined',
  '201': 'undefined',
  '305': 'security_error',
  '401': 'auth_failure',
  '402': 'security_error',
  '403': 'rejected',
  '405': 'rejected',
  '415': 'rejected',
  '416': 'user_unknown',
  '417': 'mailbox_full',
  '418': 'user_unknown',
  '420': 'suspended',
  '421': 'rejected',
  '423': 'undefined',
  '424': 'undefined',
  '426': 'suspended',
  '505': 'system_error',
  '506': 'spam_detected',
  '510': 'blocked',
  '513': 'undefined',
};

/** i.ua: `http://mail.i.ua/err/3/`. */
const IUA_CODE = /\.i\.ua\/err\/(\d{1,2})\b/;
const IUA_REASONS: Readonly<Record<string, BounceReason>> = {
  '1': 'no_relaying',
  '2': 'user_unknown',
  '3': 'suspended',
  '4': 'mailbox_full',
  '5': 'too_many_connections',
  '6': 'no_relaying',
  '7': 'blocked',
  '8': 'rejected',
  '9': 'blocked',
  '10': 'filtered',
};

/** Microsoft Exchange / Microsoft 365 resolver codes. */
const EXCHANGE_CODES: readonly Rule[] = [
  ['user_unknown', /resolver\.adr\.(?:recip(?:ient)?notfound|exrecipnotfound)/],
  ['filtered', /resolver\.rst\.notauthorized/],
  ['message_too_big', /resolver\.rst\.(?:recip)?sizelimit/],
  ['too_many_connections', /resolver\.adr\.reciplimit/],
];

/** au (KDDI): "550 : User unknown" without an address is the recipient's own filter. */
const KDDI_FILTER = /\b550 : user unknown/;

/**
 * NTT docomo's MX answers "unknown user" after DATA when the recipient refuses the sender's domain
 * (its "specified domain reception" setting): the sender is refused, not the address.
 */
const DOCOMO_MX = /\bmfsmax\.docomo\.ne\.jp\b/;

export function providerReason(text: string): BounceReason | null {
  let m = SPECTRUM_CODE.exec(text);
  if (m) {
    const n = Number(m[1]);
    for (const [from, to, reason] of SPECTRUM_RANGES) if (n >= from && n <= to) return reason;
  }
  m = COX_CODE.exec(text);
  if (m) return COX_REASONS[m[1]] ?? (m[1].startsWith('urlbl') ? 'spam_detected' : 'blocked');
  m = GODADDY_CODE.exec(text);
  if (m && GODADDY_REASONS[m[1]]) return GODADDY_REASONS[m[1]];
  m = ORANGE_CODE.exec(text);
  if (m && ORANGE_REASONS[m[1]]) return ORANGE_REASONS[m[1]];
  m = IUA_CODE.exec(text);
  if (m && IUA_REASONS[m[1]]) return IUA_REASONS[m[1]];
  for (const [reason, re] of EXCHANGE_CODES) if (re.test(text)) return reason;
  if (KDDI_FILTER.test(text)) return 'filtered';
  return null;
}

/** Provider rules that need the SMTP stage too. */
export function providerStageReason(text: string, status: string | null, stage: Stage): BounceReason | null {
  const vague = status === null || status.endsWith('.0.0');
  if (DOCOMO_MX.test(text) && stage === 'data' && vague && DOCOMO_UNKNOWN.test(text)) return 'rejected';
  return null;
}
