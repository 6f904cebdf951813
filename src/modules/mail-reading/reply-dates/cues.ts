/**
 * Cues: the words in front of (or, in German and Spanish word order, just after) a mention that say
 * what the day is: the last day of something ("until"), the day after which ("after"), the start of
 * an absence ("from"), a day back ("back on", "wieder ab"), or a hedge that voids a soft time.
 */
import type { Mention } from './scan.js';
import { WB, WE, WEEKDAY } from './words.js';

const CUE_TAIL = `\\s*(?:${WEEKDAY},?\\s*)?(?:the|den|dem|der|le|la|l['’]|el|zum|zur)?\\s*(?:d[ií]a\\s*)?$`;
const UNTIL_CUE = new RegExp(
  `${WB}(until|till|til|through|thru|up to(?: and including)?|to|bis(?:\\s+(?:einschließlich|einschl\\.|inkl\\.|inklusive|zum|zur|und mit))?(?:\\s+(?:zum|zur))?|jusqu['’]\\s*(?:au|à|a|en)|au|hasta|al)${CUE_TAIL}`,
  'i',
);
const AFTER_CUE = new RegExp(`${WB}(after|nach|après|apres|después del?|despues del?|tras)${CUE_TAIL}`, 'i');
const NOT_BEFORE_CUE = new RegExp(
  `${WB}(on or after|on or later than|not before|no earlier than|before|am oder nach|nicht vor|vor|frühestens|le ou après|pas avant|avant|no antes del?|antes del?)${CUE_TAIL}`,
  'i',
);
const FROM_CUE = new RegExp(
  `${WB}(from|starting(?: on| from)?|as of|beginning|ab|vom|von|seit|since|du|depuis|à partir du|à partir de|à compter du|à compter de|a partir del?|dès|des|desde|del)${CUE_TAIL}`,
  'i',
);
const BACK_WORDS = new RegExp(
  `${WB}(back|return|returning|returns|reopen|reopens|reopening|reopened|wiedereröffnung|wieder geöffnet|réouverture|rouvre|rouvrons|réouvrons|reapertura|reabrimos|reabre|available again|reachable again|in the office again|wieder|zurück|rückkehr|de retour|retour|reviens|reviendrai|revenons|reprise|reprends|à nouveau|de nouveau|regreso|regresaré|regresare|regresamos|vuelvo|volveré|volvere|volvemos|de vuelta|reincorporo|reincorporaré|reincorporación|de nuevo|otra vez)${WE}`,
  'i',
);
/** Words that make a soft time (a weekday, "next week", "in two weeks") too vague to act on. */
const HEDGE = new RegExp(
  `${WB}(maybe|perhaps|possibly|might|probably|vielleicht|eventuell|evtl\\.?|möglicherweise|peut-être|peut-etre|éventuellement|quizás|quizá|quizas|tal vez|a lo mejor|posiblemente)${WE}`,
  'i',
);

/** A cue after the day that makes it the day before the one meant ("…; melden Sie sich danach"). */
const AFTER_THAT = new RegExp(
  `^\\.?[^.!?\\n]{0,40}${WB}(afterwards|after that|thereafter|danach|anschließend|ensuite|après cela|après ça|después|luego)${WE}`,
  'i',
);

/**
 * A request to be contacted, in the sentence of a day: that day is the one a "not now" reply asks for,
 * over other time words around it ("we close tomorrow. Contact me again on the 7th").
 */
const CONTACT_REQUEST = new RegExp(
  `${WB}(follow(?:ing)?[ -]up|reconnect|reach out|get back to|get in touch|contact (?:me|us)|touch base|circle back|check back|check in|ping me|call me|email me|e-mail me|write to me|try (?:me|us|again)|let'?s (?:talk|speak|chat|connect)|talk then|speak then|melden sie sich|meld(?:e|en)? dich|auf mich zu|rufen sie mich|ruf mich|schreiben sie mir|schreib mir|kontaktieren sie|sprechen|telefonieren|reden|recontact\\p{L}*|contactez|rappel\\p{L}*|relanc\\p{L}*|revenez vers|écrivez-moi|reprenez contact|reparl\\p{L}*|escr[ií]b\\p{L}*|cont[aá]ct\\p{L}*|ll[aá]m\\p{L}*|habl\\p{L}*|retom\\p{L}*|vuelv\\p{L}* a (?:escribir|contactar|llamar))`,
  'iu',
);

/**
 * Where the sentence of a day asks to be contacted: "before" the day ("follow up with me on the 7th"),
 * only "after" it ("Lass uns Anfang Januar nochmal sprechen"), or not at all.
 */
export function contactRequest(text: string, m: Mention): 'before' | 'after' | null {
  if (CONTACT_REQUEST.test(clauseBefore(text, m.index))) return 'before';
  return CONTACT_REQUEST.test(clauseAfter(text, m.end)) ? 'after' : null;
}

export type Cue = 'until' | 'after' | 'not_before' | 'from' | 'none';

/** The clause before a mention: back to the last sentence end (a dot only when a capital follows). */
function clauseBefore(text: string, index: number): string {
  const before = text.slice(Math.max(0, index - 80), index);
  const cut = Math.max(before.search(/[;!?\n](?=[^;!?\n]*$)/), lastSentenceEnd(before));
  return cut >= 0 ? before.slice(cut + 1) : before;
}

function lastSentenceEnd(s: string): number {
  let at = -1;
  for (const m of s.matchAll(/[.:](?=\s+[A-ZÀ-ÝÄÖÜ])/g)) at = m.index ?? at;
  return at;
}

function clauseAfter(text: string, end: number): string {
  const after = text.slice(end, end + 60);
  const cut = after.search(/[;!?\n]|\.\s+[A-ZÀ-ÝÄÖÜ]|,\s+(?:and|und|et|y|pero|but|mais|aber)\s/);
  return cut >= 0 ? after.slice(0, cut) : after;
}

export function cueOf(text: string, m: Mention): Cue {
  const before = clauseBefore(text, m.index);
  if (m.rangeEnd) return 'until';
  if (NOT_BEFORE_CUE.test(before)) return 'not_before';
  if (AFTER_CUE.test(before)) return 'after';
  if (UNTIL_CUE.test(before)) return 'until';
  if (FROM_CUE.test(before) || m.rangeStart) return 'from';
  // "Wir entscheiden am 20.01.; melden Sie sich danach": the cue follows the day.
  if (AFTER_THAT.test(text.slice(m.end, m.end + 50))) return 'after';
  return 'none';
}

export function isBack(text: string, m: Mention, nextIndex = Number.POSITIVE_INFINITY): boolean {
  const before = clauseBefore(text, m.index).slice(-40);
  if (BACK_WORDS.test(before)) return true;
  // German and Spanish often put the verb after the day: "ab dem 7.12. wieder im Büro", "a partir del
  // 2 estaré de vuelta": a back word within the next four words.
  const next = /^[\s,.]*((?:\S+\s+){0,4})/.exec(clauseAfter(text, m.end))?.[1] ?? '';
  // …unless the back word leads to the next day ("à compter du 12 et de retour le 20").
  if (nextIndex - m.end < 50) return false;
  return BACK_WORDS.test(next) && cueOf(text, m) !== 'until';
}

export function hedged(text: string, m: Mention): boolean {
  return HEDGE.test(clauseBefore(text, m.index)) || HEDGE.test(clauseAfter(text, m.end));
}
