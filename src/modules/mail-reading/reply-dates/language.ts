/** The reply's language, by its commonest words: it picks the numeric date order and chrono-node's parser. */
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
