/**
 * Reasons a mail system's own report format states in words that mean one thing only in that
 * system's reports (the per-MTA tables of sisimai, BSD-2, and the vendors' documentation). Each rule
 * names its family by what the report itself carries (a header, its sender), so it cannot apply to
 * another system's words.
 */
import type { BounceReason, FailedRecipient } from '../types.js';
import type { ReportView } from './format.js';

interface FamilyRule {
  family: string;
  /** The report is this family's: a header or sender only it writes. */
  is(view: ReportView): boolean;
  /** Reasons by the family's documented words, first match wins. */
  words: ReadonlyArray<readonly [BounceReason, RegExp]>;
}

const FAMILY_RULES: readonly FamilyRule[] = [
  {
    // au (KDDI) EZweb: its spam filter marks the report it returns with `X-SPASIGN: NG`; the recipient's
    // filter refused the sender, whatever the words.
    family: 'ezweb',
    is: (view) => (view.header('x-spasign') ?? '').trim().toUpperCase() === 'NG',
    words: [['filtered', /./]],
  },
  {
    // Symantec.cloud (MessageLabs): `X-Msg-Ref` and MAILER-DAEMON@messagelabs.com. Its DSN gives a bare
    // 5.0.0 and "542 <addr> Rejected" or "No such user" when the recipient does not exist.
    family: 'messagelabs',
    is: (view) =>
      /messagelabs\.com/i.test(view.header('x-msg-ref') ?? '') || /@messagelabs\.com/i.test(view.from),
    words: [
      ['security_error', /turn on smtp authentication/i],
      ['user_unknown', /(?:^|\s)542 |\brejected\b|no such user/i],
    ],
  },
];

export function familyHint(view: ReportView, r: FailedRecipient): BounceReason | undefined {
  if (r.hint || !r.diagnostic) return r.hint;
  for (const rule of FAMILY_RULES) {
    if (!rule.is(view)) continue;
    for (const [reason, re] of rule.words) if (re.test(r.diagnostic)) return reason;
  }
  return undefined;
}
