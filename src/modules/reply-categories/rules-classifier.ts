/**
 * The built-in classifier (CONTRACT §20, "Built-in rules"): weighted phrase and concept rules for English,
 * German, French and Spanish, no outside call. It reads the reply as {@link replyText} leaves it (no quoted history, no
 * signature).
 *
 * Order of decision, most consequential first:
 * 1. `unsubscribe_request`: a written opt-out, not negated ("no need to remove me") and not a
 *    conditional or a quoted footer ("if you want to unsubscribe…"). It wins over everything else,
 *    because the law treats it like the unsubscribe link; its phrases are specific enough that the other
 *    senses of "remove" or "stop" ("remove the manual work", "stop by our booth") do not match.
 * 2. `wrong_person`: the writer is not the one to ask, or has left.
 * 3. `not_now`, `not_interested`, `interested`: scored; the strongest wins, ties in that order (a
 *    "not interested right now, try in Q3" is a `not_now`).
 * 4. When nothing was recognised, un-negated words of the opt-out family ("stop", "remove",
 *    "abmelden", "baja", …) decide for `unsubscribe_request`; otherwise `other`.
 *
 * The rule sets live in `rules/`, one file per category; docs/reply-categories.md has the figures.
 */
import type { ReplyCategory } from '../threads/reply-category.js';
import { INTERESTED } from './rules/interested.rules.js';
import { NOT_INTERESTED } from './rules/not-interested.rules.js';
import { NOT_NOW } from './rules/not-now.rules.js';
import { OPT_OUT_WORDS, isOptOut } from './rules/opt-out.rules.js';
import { foldText, score } from './rules/rule.js';
import { WRONG_PERSON } from './rules/wrong-person.rules.js';

export { foldText };

/**
 * The category of a reply's own words (pass {@link replyText}'s output). Pure and synchronous; the
 * same text always gets the same category.
 */
export function classifyByRules(text: string): ReplyCategory {
  const folded = foldText(text).trim();
  if (folded === '') return 'other';
  if (isOptOut(folded)) return 'unsubscribe_request';
  const wrongPerson = score(folded, WRONG_PERSON);
  if (wrongPerson >= 3) return 'wrong_person';
  const scores: [ReplyCategory, number][] = [
    ['not_now', score(folded, NOT_NOW)],
    ['not_interested', score(folded, NOT_INTERESTED)],
    ['interested', score(folded, INTERESTED)],
  ];
  // A deferral needs a real cue (2): a lone "currently" or "for now" only breaks a tie.
  const [best, bestScore] = scores.reduce((a, b) => (b[1] > a[1] ? b : a));
  if (bestScore >= 2) {
    if (best === 'not_interested' && scores[0][1] >= 2) return 'not_now';
    return best;
  }
  if (wrongPerson >= 2) return 'wrong_person';
  if (bestScore > 0) return best;
  // Nothing else recognised, but the reply speaks of stopping, removal or lists (un-negated): a written
  // opt-out is the costliest miss, so words of that family decide here.
  return score(folded, OPT_OUT_WORDS) > 0 ? 'unsubscribe_request' : 'other';
}
