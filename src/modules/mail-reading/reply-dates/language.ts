/** The reply's language, by its commonest words: it picks the numeric date order and chrono-node's parser. */
import { DAY_MS, utc, validDate } from './calendar.js';
import type { Lang } from './types.js';

const LANG_WORDS: Record<Lang, RegExp> = {
  en: /\b(the|and|i|i'm|am|will|be|until|back|office|please|you|me|my|with|after|on|in|to|of|for|this|not|now)\b/g,
  de: /\b(ich|und|bin|der|die|das|bis|wieder|im|nicht|sie|mit|ab|zum|dem|büro|urlaub|nach|bitte|ihre|mich|uns|wir|sich)\b/g,
  fr: /\b(je|le|la|les|et|suis|jusqu|retour|au|du|vous|pas|bureau|absent|absente|après|merci|moi|nous|des|est|serai)\b/g,
  es: /\b(el|los|las|y|estoy|hasta|del|vuelta|regreso|oficina|usted|con|después|que|por|para|gracias|estaré|nos|mi|es)\b/g,
};

export function detectLang(lower: string): Lang {
  let best: Lang = 'en';
  let bestScore = 0;
  for (const lang of ['en', 'de', 'fr', 'es'] as Lang[]) {
    const score = (lower.match(LANG_WORDS[lang]) ?? []).length;
    if (score > bestScore) {
      best = lang;
      bestScore = score;
    }
  }
  return best;
}

/**
 * Whether the text's slash dates are US month-first: only in English, and only when one of them can
 * only be read that way — no 13th month ("12/15"), or, with its year, day first lies in the past while
 * month first lies ahead within a year ("12/07/2026" written in November 2026).
 */
export function monthFirst(lower: string, lang: Lang, today: number): boolean {
  if (lang !== 'en') return false;
  return [...lower.matchAll(/(?<![\d./-])(\d{1,2})\/(\d{1,2})(?:\/(\d{4}))?(?![\d/])/g)].some((m) => {
    const [a, b] = [Number(m[1]), Number(m[2])];
    if (a <= 12 && b > 12) return true;
    if (!m[3] || a > 12 || b > 12) return false;
    const y = Number(m[3]);
    const dayFirst = validDate(y, b, a) ? utc(y, b, a) : Number.NaN;
    const usDay = validDate(y, a, b) ? utc(y, a, b) : Number.NaN;
    return dayFirst < today && usDay >= today && usDay <= today + 366 * DAY_MS;
  });
}
