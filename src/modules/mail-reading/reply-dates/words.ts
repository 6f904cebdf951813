/**
 * Words of the four languages (month and weekday names, number words) and the pattern pieces the
 * scanner and the cues are built from.
 */

export const MONTH_WORDS: Record<string, number> = {};
export const LONG_MONTHS = new Set<string>();
function months(list: readonly (readonly string[])[], long: boolean): void {
  list.forEach((names, i) =>
    names.forEach((n) => {
      MONTH_WORDS[n] = i + 1;
      if (long) LONG_MONTHS.add(n);
    }),
  );
}
// Full names, any of which may stand alone ("in March", "im März", "en mars", "en marzo").
months(
  [
    ['january', 'januar', 'jänner', 'janvier', 'enero'],
    ['february', 'februar', 'feber', 'février', 'fevrier', 'febrero'],
    ['march', 'märz', 'maerz', 'mars', 'marzo'],
    ['april', 'avril', 'abril'],
    ['may', 'mai', 'mayo'],
    ['june', 'juni', 'juin', 'junio'],
    ['july', 'juli', 'juillet', 'julio'],
    ['august', 'août', 'aout', 'agosto'],
    ['september', 'septembre', 'septiembre', 'setiembre'],
    ['october', 'oktober', 'octobre', 'octubre'],
    ['november', 'novembre', 'noviembre'],
    ['december', 'dezember', 'décembre', 'decembre', 'diciembre'],
  ],
  true,
);
// Abbreviations, read only next to a day number or a year ("Dec 1st", "5. Dez.", "janv. 2027").
months(
  [
    ['jan', 'janv', 'ene'],
    ['feb', 'febr', 'févr', 'fevr', 'fév', 'fev'],
    ['mar', 'mär', 'mrz'],
    ['apr', 'avr', 'abr'],
    [],
    ['jun'],
    ['jul', 'juil'],
    ['aug', 'ago'],
    ['sep', 'sept', 'set'],
    ['oct', 'okt'],
    ['nov'],
    ['dec', 'dez', 'déc', 'dic'],
  ],
  false,
);

export const WEEKDAY_WORDS: Record<string, number> = {};
[
  ['sunday', 'sonntag', 'dimanche', 'domingo', 'sun'],
  ['monday', 'montag', 'lundi', 'lunes', 'mon'],
  ['tuesday', 'dienstag', 'mardi', 'martes', 'tue', 'tues'],
  ['wednesday', 'mittwoch', 'mercredi', 'miércoles', 'miercoles', 'wed'],
  ['thursday', 'donnerstag', 'jeudi', 'jueves', 'thu', 'thur', 'thurs'],
  ['friday', 'freitag', 'vendredi', 'viernes', 'fri'],
  ['saturday', 'samstag', 'sonnabend', 'samedi', 'sábado', 'sabado', 'sat'],
].forEach((names, i) => names.forEach((n) => (WEEKDAY_WORDS[n] = i)));

export const NUMBER_WORDS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  'a couple of': 2,
  'couple of': 2,
  ein: 1,
  eine: 1,
  einem: 1,
  einer: 1,
  zwei: 2,
  drei: 3,
  vier: 4,
  fünf: 5,
  sechs: 6,
  sieben: 7,
  acht: 8,
  neun: 9,
  zehn: 10,
  elf: 11,
  zwölf: 12,
  vierzehn: 14,
  un: 1,
  une: 1,
  deux: 2,
  trois: 3,
  quatre: 4,
  cinq: 5,
  sept: 7,
  huit: 8,
  neuf: 9,
  dix: 10,
  onze: 11,
  douze: 12,
  quinze: 15,
  uno: 1,
  una: 1,
  dos: 2,
  tres: 3,
  cuatro: 4,
  cinco: 5,
  seis: 6,
  siete: 7,
  ocho: 8,
  nueve: 9,
  diez: 10,
  'un par de': 2,
  once: 11,
  doce: 12,
  quince: 15,
};

export const alt = (words: Iterable<string>): string =>
  [...words]
    .sort((a, b) => b.length - a.length)
    .map((w) => w.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&'))
    .join('|');

/** Letters of the four languages, for word edges (`\b` does not know "é" or "ü"). */
const L = 'a-zà-ÿß';
export const WB = `(?<![${L}])`;
export const WE = `(?![${L}])`;

export const MONTH = `(${alt(Object.keys(MONTH_WORDS))})\\.?`;
export const WEEKDAY = `(${alt(Object.keys(WEEKDAY_WORDS))})\\.?`;
/** A day of the month with its ordinal marks: 5, 5th, 5., 1er, 1º. */
export const DAY = `(?<!\\d)(\\d{1,2})(?:st|nd|rd|th|er|ᵉʳ|º|°|\\.)?`;
export const YEAR_TAIL = `(?:\\s*,?\\s*(?:de\\s+|del\\s+)?(\\d{4}))?`;
export const ARTICLE = `(?:the|le|el|den|dem|der)\\s+`;
export const NUM = `(\\d{1,3}|${alt(Object.keys(NUMBER_WORDS))})`;
