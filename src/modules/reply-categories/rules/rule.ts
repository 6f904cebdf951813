/**
 * What every rule set of the built-in classifier is made of: folded text, phrase rules with a weight,
 * and the negation that cancels a phrase within its clause (EN/DE/FR/ES).
 */
/** Lower case, no diacritics (é → e, ü → u, ß → ss), straight apostrophes, addresses and links as tokens. */
export function foldText(text: string): string {
  return text
    .replace(/https?:\/\/\S+/gi, ' urladdr ')
    .replace(/[^\s<>()[\]@,;:"']+@[^\s<>()[\]@,;:"']+\.[a-z]{2,}/gi, ' emailaddr ')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[’‘´`]/g, "'")
    .replace(/[“”«»„]/g, '"')
    .replace(/[ \t]+/g, ' ');
}

/** What ends a clause, for negation: sentence ends, commas, dashes, "but"-like words, "and I". */
const CLAUSE_BOUNDARY =
  /[.!?;:\n,(]|\s[-–—]\s|\b(but|however|though|although|aber|jedoch|doch|sondern|mais|cependant|pero|sino|aunque)\b|\b(and|und|et|y) (i|we|i'd|we'd|i'm|we're|ich|wir|je|j'|nous|yo|nosotros)\b/g;

/** How far back a negation is looked for: it stands a few words before the phrase it cancels. */
const NEGATION_WINDOW = 120;

/** Where the clause holding `index` begins, looking back at most {@link NEGATION_WINDOW} characters. */
function clauseStart(text: string, index: number): number {
  const from = Math.max(0, index - NEGATION_WINDOW);
  let start = from;
  for (const m of text.slice(from, index).matchAll(CLAUSE_BOUNDARY)) start = from + m.index + m[0].length;
  return start;
}

/** A negation standing before a phrase in the same clause (EN/DE/FR/ES). */
const NEGATION_BEFORE =
  /\b(was about to|were about to|almost|nearly|was going to|thought about|thinking about|considered|considering|was tempted to|not|no|never|dont|don't|doesn't|didn't|won't|wouldn't|isn't|aren't|can't|cannot|no need to|no reason to|without|nicht|kein|keine|keinen|nie|niemals|ne|n'|pas|jamais|sans|nunca|tampoco|sin)\b[^.!?;,\n]*$/;
/** German and French put the negation after the verb: "interessiert uns nicht", "intéresse pas". */
const NEGATION_AFTER = /^[^.!?;,\n]{0,25}?\b(nicht|kein|keine|pas|plus du tout)\b/;

export interface Rule {
  re: RegExp;
  weight: number;
  /** When true, a negation before the phrase (same clause) or a German/French one right after cancels it. */
  negatable: boolean;
}

/** A phrase worth `weight`; cancelled by a negation in its clause unless `negatable` is false. */
export const rule = (re: RegExp, weight = 2, negatable = true): Rule => ({
  re: new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`),
  weight,
  negatable,
});
/** A phrase that carries its own negation ("no me interesa", "don't email me"): never cancelled. */
export const fixed = (re: RegExp, weight = 2): Rule => rule(re, weight, false);

/** The sum of the weights of the rules that match somewhere, un-negated. */
export function score(text: string, rules: readonly Rule[]): number {
  let total = 0;
  for (const r of rules) {
    for (const m of text.matchAll(r.re)) {
      if (r.negatable && isNegated(text, m.index, m[0].length)) continue;
      total += r.weight;
      break;
    }
  }
  return total;
}

function isNegated(text: string, index: number, length: number): boolean {
  const before = text.slice(clauseStart(text, index), index);
  if (NEGATION_BEFORE.test(before)) return true;
  return NEGATION_AFTER.test(text.slice(index + length, index + length + 30));
}
