/**
 * What a reply's own words say about *when* and *whom* (sequences that react): the day a "not now"
 * wants to hear back, the day an away notice names, and a person a "wrong person" reply points to.
 * Pure: no database, no network. Callers pass the reply's own words (quoted history removed,
 * `reply-categories/reply-text.ts`) and the reply's `Date`.
 *
 * Days are calendar days (`YYYY-MM-DD`) as written; turning one into an instant (the campaign's start
 * time in the contact's time zone, the first working day after an away date) is the caller's rule.
 *
 * How it reads (docs/reading-dates.md has the whole rule and its measured figures): a scanner built
 * from how dates are written in English, German, French and Spanish (numeric day-first dates, a day
 * and a month name, day ranges, a month alone or its beginning/middle/end, weekdays, "in two weeks",
 * "next month") finds every mention and the cue in front of it ("until", "back on", "after", "from");
 * chrono-node's parser of the reply's language reads what the scanner does not know. A vague time
 * ("Q3", "after the holidays", a hedged "next week maybe") sets nothing.
 */
import * as chrono from 'chrono-node';
import { parse as parseDomain } from 'tldts';

export interface ReadDay {
  /** The calendar day, `YYYY-MM-DD`. */
  day: string;
  /** True when the text named a month alone ("in March"): `day` is that month's first working day. */
  monthOnly: boolean;
  /**
   * Away notices only: true when `day` is the day the author is back ("back on", "wieder ab", "de
   * retour le", "regreso el"), false when it is the last day away ("until", "bis", "jusqu'au", "hasta").
   */
  dayBack?: boolean;
}

export interface ReadReferral {
  email: string;
  firstName: string | null;
  lastName: string | null;
  /** True when the address is at the replier's own registrable domain (always, unless `anyDomain`). */
  sameDomain?: boolean;
}

export interface ReadReferralOptions {
  /** Also answer an address at another domain (`sameDomain: false`), when no same-domain one is named. */
  anyDomain?: boolean;
  /** Addresses never taken (the inbox the campaign sends from, ...), compared case-insensitively. */
  exclude?: readonly string[];
}

type Lang = 'en' | 'de' | 'fr' | 'es';

// ---------------------------------------------------------------------------------------------------
// Calendar helpers (all in UTC: a day is a calendar day, never an instant).

const DAY_MS = 86_400_000;

function isoDay(year: number, month: number, day: number): string {
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

function utc(year: number, month: number, day: number): number {
  return Date.UTC(year, month - 1, day);
}

function dayOfMs(ms: number): string {
  const d = new Date(ms);
  return isoDay(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate());
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function validDate(year: number, month: number, day: number): boolean {
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

function firstWorkingDay(year: number, month: number): number {
  for (let d = 1; d <= 7; d += 1) {
    const wd = new Date(utc(year, month, d)).getUTCDay();
    if (wd !== 0 && wd !== 6) return utc(year, month, d);
  }
  return utc(year, month, 1);
}

function addMonths(ms: number, n: number): number {
  const d = new Date(ms);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + n;
  const target = new Date(Date.UTC(y, m, 1));
  const last = daysInMonth(target.getUTCFullYear(), target.getUTCMonth() + 1);
  return Date.UTC(target.getUTCFullYear(), target.getUTCMonth(), Math.min(d.getUTCDate(), last));
}

/** How far back a yearless date still counts as "this year's, in the past" rather than next year's. */
const RECENT_PAST_DAYS = 45;

/** The year of a yearless day and month: this year's unless it lies more than 45 days back. */
function yearFor(month: number, day: number, today: number): number | null {
  const year = new Date(today).getUTCFullYear();
  if (!validDate(year, month, day) && !validDate(year + 1, month, day)) return null;
  const thisYear = validDate(year, month, day) ? utc(year, month, day) : Number.NaN;
  if (thisYear >= today) return year;
  if (today - thisYear <= RECENT_PAST_DAYS * DAY_MS) return year;
  return year + 1;
}

/** The year of a yearless month: this year's unless the month is already over. */
function yearForMonth(month: number, today: number): number {
  const d = new Date(today);
  return month < d.getUTCMonth() + 1 ? d.getUTCFullYear() + 1 : d.getUTCFullYear();
}

// ---------------------------------------------------------------------------------------------------
// Words of the four languages.

const MONTH_WORDS: Record<string, number> = {};
const LONG_MONTHS = new Set<string>();
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

const WEEKDAY_WORDS: Record<string, number> = {};
[
  ['sunday', 'sonntag', 'dimanche', 'domingo', 'sun'],
  ['monday', 'montag', 'lundi', 'lunes', 'mon'],
  ['tuesday', 'dienstag', 'mardi', 'martes', 'tue', 'tues'],
  ['wednesday', 'mittwoch', 'mercredi', 'miércoles', 'miercoles', 'wed'],
  ['thursday', 'donnerstag', 'jeudi', 'jueves', 'thu', 'thur', 'thurs'],
  ['friday', 'freitag', 'vendredi', 'viernes', 'fri'],
  ['saturday', 'samstag', 'sonnabend', 'samedi', 'sábado', 'sabado', 'sat'],
].forEach((names, i) => names.forEach((n) => (WEEKDAY_WORDS[n] = i)));

const NUMBER_WORDS: Record<string, number> = {
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

const alt = (words: Iterable<string>): string =>
  [...words]
    .sort((a, b) => b.length - a.length)
    .map((w) => w.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&'))
    .join('|');

/** Letters of the four languages, for word edges (`\b` does not know "é" or "ü"). */
const L = 'a-zà-ÿß';
const WB = `(?<![${L}])`;
const WE = `(?![${L}])`;

const MONTH = `(${alt(Object.keys(MONTH_WORDS))})\\.?`;
const WEEKDAY = `(${alt(Object.keys(WEEKDAY_WORDS))})\\.?`;
/** A day of the month with its ordinal marks: 5, 5th, 5., 1er, 1º. */
const DAY = `(\\d{1,2})(?:st|nd|rd|th|er|ᵉʳ|º|°|\\.)?`;
const YEAR_TAIL = `(?:\\s*,?\\s*(?:de\\s+|del\\s+)?(\\d{4}))?`;
const ARTICLE = `(?:the|le|el|den|dem|der)\\s+`;
const NUM = `(\\d{1,3}|${alt(Object.keys(NUMBER_WORDS))})`;

// ---------------------------------------------------------------------------------------------------
// Cues: the words in front of (or, in German and Spanish word order, just after) a mention.

const CUE_TAIL = `\\s*(?:${WEEKDAY},?\\s*)?(?:the|den|dem|der|le|la|l['’]|el|zum|zur)?\\s*(?:d[ií]a\\s*)?$`;
const UNTIL_CUE = new RegExp(
  `${WB}(until|till|til|through|thru|up to(?: and including)?|to|bis(?:\\s+(?:einschließlich|einschl\\.|inkl\\.|inklusive|zum|zur|und mit))?(?:\\s+(?:zum|zur))?|jusqu['’]\\s*(?:au|à|a|en)|au|hasta|al)${CUE_TAIL}`,
  'i',
);
const AFTER_CUE = new RegExp(`${WB}(after|nach|après|apres|después del?|despues del?|tras)${CUE_TAIL}`, 'i');
const NOT_BEFORE_CUE = new RegExp(
  `${WB}(not before|no earlier than|before|nicht vor|vor|frühestens|pas avant|avant|no antes del?|antes del?)${CUE_TAIL}`,
  'i',
);
const FROM_CUE = new RegExp(
  `${WB}(from|starting(?: on| from)?|as of|beginning|ab|vom|von|seit|since|du|depuis|à partir du|à partir de|à compter du|à compter de|a partir del?|dès|des|desde|del)${CUE_TAIL}`,
  'i',
);
const BACK_WORDS = new RegExp(
  `${WB}(back|return|returning|returns|reopen|reopening|available again|reachable again|in the office again|wieder|zurück|rückkehr|de retour|retour|reviens|reviendrai|revenons|reprise|reprends|à nouveau|de nouveau|regreso|regresaré|regresare|regresamos|vuelvo|volveré|volvere|volvemos|de vuelta|reincorporo|reincorporaré|reincorporación|de nuevo|otra vez)${WE}`,
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

type Cue = 'until' | 'after' | 'not_before' | 'from' | 'none';

interface Mention {
  index: number;
  end: number;
  /** The first instant of the day (UTC), or NaN when it could not be resolved. */
  ms: number;
  monthOnly: boolean;
  /** A time that is itself imprecise (a weekday alone, "next week", "in two weeks"): a hedge voids it. */
  soft: boolean;
  /** The first day of a written range ("from 1 to 5 December": the 1st). */
  rangeStart?: boolean;
  /** The last day of a written range. */
  rangeEnd?: boolean;
}

// ---------------------------------------------------------------------------------------------------
// The scanner.

interface Scan {
  text: string;
  lower: string;
  today: number;
  lang: Lang;
  us: boolean;
  mentions: Mention[];
}

function overlaps(scan: Scan, index: number, end: number): boolean {
  return scan.mentions.some((m) => index < m.end && end > m.index);
}

function add(scan: Scan, m: Mention): void {
  if (!overlaps(scan, m.index, m.end)) scan.mentions.push(m);
}

function each(scan: Scan, pattern: string, fn: (match: RegExpExecArray) => Mention | Mention[] | null): void {
  const re = new RegExp(`${WB}${pattern}`, 'giu');
  for (const match of scan.lower.matchAll(re)) {
    const index = match.index ?? 0;
    if (overlaps(scan, index, index + match[0].length)) continue;
    const out = fn(match as RegExpExecArray);
    if (!out) continue;
    for (const m of Array.isArray(out) ? out : [out]) add(scan, m);
  }
}

function dayMs(scan: Scan, day: number, month: number, year?: string): number {
  if (year) {
    const y = Number(year);
    return validDate(y, month, day) ? utc(y, month, day) : Number.NaN;
  }
  const y = yearFor(month, day, scan.today);
  return y !== null && validDate(y, month, day) ? utc(y, month, day) : Number.NaN;
}

/** The next day with this day of the month, from today on. */
function nextDayOfMonth(today: number, day: number): number {
  const d = new Date(today);
  for (let k = 0; k < 3; k += 1) {
    const y = d.getUTCFullYear();
    const m = d.getUTCMonth() + 1 + k;
    const yy = y + Math.floor((m - 1) / 12);
    const mm = ((m - 1) % 12) + 1;
    if (validDate(yy, mm, day) && utc(yy, mm, day) >= today) return utc(yy, mm, day);
  }
  return Number.NaN;
}

/** The next such weekday, strictly after today. */
function nextWeekday(today: number, weekday: number): number {
  const wd = new Date(today).getUTCDay();
  const diff = (weekday - wd + 7) % 7 || 7;
  return today + diff * DAY_MS;
}

function mondayOfNextWeek(today: number): number {
  const wd = new Date(today).getUTCDay();
  return today + ((8 - wd) % 7 || 7) * DAY_MS;
}

function monthMention(
  scan: Scan,
  index: number,
  end: number,
  month: number,
  year: string | undefined,
  modifier: string | undefined,
): Mention {
  const y = year ? Number(year) : yearForMonth(month, scan.today);
  const mod = (modifier ?? '').toLowerCase().replace(/[\s-]+$/, '');
  if (/^(mid|middle of|the middle of|mitte|mi|mediados de)$/.test(mod)) {
    return { index, end, ms: utc(y, month, 15), monthOnly: false, soft: false };
  }
  if (/(late|end of|ende|fin|finales de|fines de|final de)$/.test(mod)) {
    return { index, end, ms: utc(y, month, daysInMonth(y, month)), monthOnly: false, soft: false };
  }
  return { index, end, ms: firstWorkingDay(y, month), monthOnly: true, soft: false };
}

const MONTH_PREPOSITION = new RegExp(
  `${WB}(in|im|en|ab|from|until|till|by|after|before|bis|nach|vor|seit|jusqu['’]en|jusqu['’]à|jusqu['’]au|après|avant|dès|hasta|después de|antes de|desde|a partir de|à partir de|around|vers|gegen|for|of|de|d['’]|during|während|pendant|durante|mois de|mes de|monat)\\s*$`,
  'i',
);

function scanText(text: string, replyDate: Date, lang: Lang): Scan {
  const lower = text.toLowerCase();
  const today = utc(replyDate.getUTCFullYear(), replyDate.getUTCMonth() + 1, replyDate.getUTCDate());
  // US month-first numeric dates only in English, and only when one of the text's dates can only be
  // read that way (12/15: no 15th month).
  const us =
    lang === 'en' &&
    [...lower.matchAll(/(?<![\d./-])(\d{1,2})\/(\d{1,2})(?:\/\d{2,4})?(?![\d/])/g)].some(
      (m) => Number(m[1]) <= 12 && Number(m[2]) > 12,
    );
  const scan: Scan = { text, lower, today, lang, us, mentions: [] };

  // 2026-12-05, 2026/12/05
  each(scan, `(\\d{4})([-/.])(\\d{1,2})\\2(\\d{1,2})(?!\\d)`, (m) => ({
    index: m.index,
    end: m.index + m[0].length,
    ms: validDate(+m[1], +m[3], +m[4]) ? utc(+m[1], +m[3], +m[4]) : Number.NaN,
    monthOnly: false,
    soft: false,
  }));

  // Day ranges in one month: "9 to 20 November", "vom 9. bis 13. November", "du 9 au 20 novembre",
  // "del 9 al 20 de noviembre", "am 12. und 13. November", "le 12 et le 13 novembre".
  each(
    scan,
    `(?:${ARTICLE})?${DAY}\\s*(?:-|–|—|to|till|until|through|thru|and|bis(?:\\s+zum)?|und|au|et(?:\\s+le)?|al|a|y(?:\\s+el)?)\\s*(?:${ARTICLE})?(?:${WEEKDAY},?\\s*)?${DAY}\\s*(?:of\\s+|de\\s+)?${MONTH}${YEAR_TAIL}${WE}`,
    (m) => {
      const month = MONTH_WORDS[m[4].replace(/\.$/, '')];
      const a = dayMs(scan, +m[1], month, m[5]);
      let b = dayMs(scan, +m[3], month, m[5]);
      if (b < a) b = Number.NaN;
      const i = m.index;
      return [
        { index: i, end: i + 1, ms: a, monthOnly: false, soft: false, rangeStart: true },
        { index: i + 1, end: i + m[0].length, ms: b, monthOnly: false, soft: false, rangeEnd: true },
      ];
    },
  );

  // "December 1-5", "Nov 9 through 23"
  each(
    scan,
    `${MONTH}\\s+${DAY}\\s*(?:-|–|—|to|through|thru|until|and|&)\\s*${DAY}(?!\\d)${YEAR_TAIL}`,
    (m) => {
      const month = MONTH_WORDS[m[1].replace(/\.$/, '')];
      const a = dayMs(scan, +m[2], month, m[4]);
      const b = dayMs(scan, +m[3], month, m[4]);
      const i = m.index;
      return [
        { index: i, end: i + 1, ms: a, monthOnly: false, soft: false, rangeStart: true },
        {
          index: i + 1,
          end: i + m[0].length,
          ms: b >= a ? b : Number.NaN,
          monthOnly: false,
          soft: false,
          rangeEnd: true,
        },
      ];
    },
  );

  // "5 December", "5th of December", "5. Dezember", "1er décembre", "5 de diciembre de 2026", with a weekday.
  each(
    scan,
    `(?:${WEEKDAY},?\\s+)?(?:${ARTICLE})?${DAY}\\s*(?:of\\s+|de\\s+)?${MONTH}${YEAR_TAIL}${WE}`,
    (m) => {
      const month = MONTH_WORDS[m[3].replace(/\.$/, '')];
      return {
        index: m.index,
        end: m.index + m[0].length,
        ms: dayMs(scan, +m[2], month, m[4]),
        monthOnly: false,
        soft: false,
      };
    },
  );

  // "December 5th", "Dec 1st, 2026", "Monday, January 11th"
  each(scan, `(?:${WEEKDAY},?\\s+)?${MONTH}\\s+(?:the\\s+)?${DAY}(?![\\d:])${YEAR_TAIL}`, (m) => {
    const month = MONTH_WORDS[m[2].replace(/\.$/, '')];
    return {
      index: m.index,
      end: m.index + m[0].length,
      ms: dayMs(scan, +m[3], month, m[4]),
      monthOnly: false,
      soft: false,
    };
  });

  // Numeric ranges: "11/16-11/20", "vom 09.11. – 20.11.2026", "du 10/11 au 13/11".
  each(
    scan,
    `(?<![\\d.:/,-])(\\d{1,2})([./])(\\d{1,2})(?:\\2(\\d{4}|\\d{2}))?\\.?\\s*(?:-|–|—|to|until|through|bis(?:\\s+zum)?|au|al|hasta)\\s*(\\d{1,2})\\2(\\d{1,2})(?:\\2(\\d{4}|\\d{2}))?(?![\\d:/]|[.,]\\d)`,
    (m) => {
      const read = (a: string, b: string, y: string | undefined): number => {
        let day = +a;
        let month = +b;
        if ((scan.us && day <= 12) || (day <= 12 && month > 12)) [day, month] = [month, day];
        return dayMs(scan, day, month, y && y.length === 2 ? `20${y}` : y);
      };
      const end = read(m[5], m[6], m[7]);
      let start = read(m[1], m[3], m[4] ?? m[7]);
      if (!(start <= end)) start = read(m[1], m[3], m[4]);
      const i = m.index;
      return [
        { index: i, end: i + 1, ms: start, monthOnly: false, soft: false, rangeStart: true },
        { index: i + 1, end: i + m[0].length, ms: end, monthOnly: false, soft: false, rangeEnd: true },
      ];
    },
  );

  // Numeric: 05.12., 5/12, 30/11/2026, 14.01.2027 (day first; month first in clearly US English).
  each(
    scan,
    `(?<![\\d.:/,-])(\\d{1,2})([./-])(\\d{1,2})(?:\\2(\\d{4}|\\d{2})(?!\\d))?(?![\\d:/]|[.,]\\d)`,
    (m) => {
      let day = +m[1];
      let month = +m[3];
      if ((scan.us && day <= 12) || (day <= 12 && month > 12)) [day, month] = [month, day];
      // A bare "9.30" is a time, not a day: a dot needs the closing dot or a year.
      if (m[2] === '.' && !m[4] && scan.lower[m.index + m[0].length] !== '.') return null;
      // "2-3 weeks" is a span of numbers: a dash date needs its year (05-12-2026).
      if (m[2] === '-' && !m[4]) return null;
      let year = m[4];
      if (year && year.length === 2) year = `20${year}`;
      return {
        index: m.index,
        end: m.index + m[0].length,
        ms: dayMs(scan, day, month, year),
        monthOnly: false,
        soft: false,
      };
    },
  );

  // The end of the month or of the year: "end of the month", "Ende des Jahres", "fin du mois", "finales de mes".
  each(
    scan,
    `(?:the\\s+)?(?:end of (?:the |this )?(month|year)|ende (?:des|dieses) (monats|jahres)|(monats|jahres)ende|(?:la\\s+)?fin (?:du |de l['’]|d['’]|de la |de )?(mois|année|annee|an)|fin(?:al)?(?:es)? de(?:l| este)? (mes|año))${WE}`,
    (m) => {
      const unit = (m[1] ?? m[2] ?? m[3] ?? m[4] ?? m[5]).toLowerCase();
      const d = new Date(scan.today);
      const y = d.getUTCFullYear();
      const month = /^(month|monats|mois|mes)$/.test(unit) ? d.getUTCMonth() + 1 : 12;
      return {
        index: m.index,
        end: m.index + m[0].length,
        ms: utc(y, month, daysInMonth(y, month)),
        monthOnly: false,
        soft: false,
      };
    },
  );

  // A month alone, or its beginning, middle or end: "in March", "early March", "Mitte Januar", "début
  // mars", "mi-janvier", "fin janvier", "a principios de febrero", "März 2027".
  each(
    scan,
    `(?:(early|beginning of|start of|the beginning of|the start of|mid-|mid|middle of|the middle of|late|end of|the end of|anfang|beginn|mitte|ende|début|debut|courant|mi-|fin|principios de|comienzos de|inicios de|mediados de|finales de|fines de|final de)\\s*)?(?:(?:de|d['’])\\s*)?${MONTH}${YEAR_TAIL}${WE}`,
    (m) => {
      const word = m[2].replace(/\.$/, '');
      const month = MONTH_WORDS[word];
      const hasYear = Boolean(m[3]);
      if (!LONG_MONTHS.has(word) && !hasYear) return null;
      if (!m[1] && !hasYear && !MONTH_PREPOSITION.test(scan.lower.slice(Math.max(0, m.index - 24), m.index)))
        return null;
      return monthMention(scan, m.index, m.index + m[0].length, month, m[3], m[1]);
    },
  );

  // "in two weeks", "in 10 days", "in einem Monat", "dans deux semaines", "en dos semanas", "dentro de un mes".
  each(
    scan,
    `(?:in|dans|d['’]ici|en|dentro de|innerhalb von)\\s+${NUM}\\s+(days?|tage[n]?|tag|jours?|d[ií]as?|weeks?|wochen|woche|semaines?|semanas?|months?|monate[n]?|monat|mois|mes(?:es)?)(?:['’]s? time)?${WE}`,
    (m) => relative(scan, m.index, m.index + m[0].length, m[1], m[2]),
  );
  each(scan, `${NUM}\\s+(days?|weeks?|months?)\\s+from\\s+(?:now|today)${WE}`, (m) =>
    relative(scan, m.index, m.index + m[0].length, m[1], m[2]),
  );
  each(
    scan,
    `(?:in|within)\\s+a\\s+fortnight|(?:dans|d['’]ici)\\s+quinze\\s+jours|en\\s+quince\\s+d[ií]as`,
    (m) => ({
      index: m.index,
      end: m.index + m[0].length,
      ms: scan.today + 14 * DAY_MS,
      monthOnly: false,
      soft: true,
    }),
  );

  // Next week (its Monday) and next month (its first working day).
  each(
    scan,
    `(?:next week|nächste[n]? woche|kommende[n]? woche|(?:la\\s+)?semaine prochaine|(?:la\\s+)?semana que viene|(?:la\\s+)?pr[oó]xima semana|(?:la\\s+)?semana pr[oó]xima)${WE}`,
    (m) => ({
      index: m.index,
      end: m.index + m[0].length,
      ms: mondayOfNextWeek(scan.today),
      monthOnly: false,
      soft: true,
    }),
  );
  each(
    scan,
    `(?:next month|nächste[n]? monat|kommende[n]? monat|(?:le\\s+)?mois prochain|(?:el\\s+)?mes que viene|(?:el\\s+)?pr[oó]ximo mes|(?:el\\s+)?mes pr[oó]ximo)${WE}`,
    (m) => {
      const d = new Date(scan.today);
      const next = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
      return {
        index: m.index,
        end: m.index + m[0].length,
        ms: firstWorkingDay(next.getUTCFullYear(), next.getUTCMonth() + 1),
        monthOnly: true,
        soft: true,
      };
    },
  );

  // Tomorrow and the day after.
  each(scan, `(?:the day after tomorrow|übermorgen|après-demain|apres-demain|pasado mañana)${WE}`, (m) => ({
    index: m.index,
    end: m.index + m[0].length,
    ms: scan.today + 2 * DAY_MS,
    monthOnly: false,
    soft: true,
  }));
  each(scan, `(?:tomorrow|morgen|demain|mañana)${WE}`, (m) => {
    const before = scan.lower.slice(Math.max(0, m.index - 12), m.index);
    // "Guten Morgen", "am Morgen", "por la mañana", "esta mañana" are mornings, not tomorrow.
    if (/(guten|am|heute|jeden|den|dem|diesen|la|esta|cada)\s+$/.test(before)) return null;
    return {
      index: m.index,
      end: m.index + m[0].length,
      ms: scan.today + DAY_MS,
      monthOnly: false,
      soft: true,
    };
  });

  // A weekday, alone or with its day of the month: "until Friday", "Monday 7th", "lundi prochain", "el próximo lunes".
  each(
    scan,
    `(?:(?:next|this|coming|on|nächsten|kommenden|diesen|am|el\\s+pr[oó]ximo|el|le|ce|este|pr[oó]ximo)\\s+)?${WEEKDAY}(?:\\s+(?:prochain|que viene|pr[oó]ximo))?(?:,?\\s+(?:the\\s+|den\\s+)?(\\d{1,2})(?:st|nd|rd|th|\\.|er)?(?![\\d./:]))?${WE}`,
    (m) => {
      const word = m[1].replace(/\.$/, '');
      // Abbreviations ("Mon", "Fri") only before a day number.
      if (word.length <= 4 && !m[2]) return null;
      const ms = m[2] ? nextDayOfMonth(scan.today, +m[2]) : nextWeekday(scan.today, WEEKDAY_WORDS[word]);
      return { index: m.index, end: m.index + m[0].length, ms, monthOnly: false, soft: !m[2] };
    },
  );

  // A day of the month alone, with its article: "the 23rd", "am 15.", "bis zum 15.", "le 15", "el 15".
  each(
    scan,
    `(?:(?:the|until|till|til|through|on|by|from|after|before|since)\\s+(\\d{1,2})(?:st|nd|rd|th)|(?:am|zum|dem|den)\\s+(\\d{1,2})\\.(?!\\d)|(?:le|au|du)\\s+(\\d{1,2})(?:er)?(?![\\d:/h]|[.,]\\d)|(?:el|al|del)\\s+(?:d[ií]a\\s+)?(\\d{1,2})(?![\\d:/h]|[.,]\\d))${WE}`,
    (m) => {
      const n = Number(m[1] ?? m[2] ?? m[3] ?? m[4]);
      if (n < 1 || n > 31) return null;
      return {
        index: m.index,
        end: m.index + m[0].length,
        ms: nextDayOfMonth(scan.today, n),
        monthOnly: false,
        soft: false,
      };
    },
  );

  scan.mentions.sort((a, b) => a.index - b.index);
  return scan;
}

function relative(scan: Scan, index: number, end: number, num: string, unit: string): Mention | null {
  const n = /^\d+$/.test(num) ? Number(num) : NUMBER_WORDS[num.toLowerCase()];
  if (!n) return null;
  const u = unit.toLowerCase();
  let ms: number;
  if (/^(day|tag|jour|d[ií]a)/.test(u)) ms = scan.today + n * DAY_MS;
  else if (/^(week|woche|semaine|semana)/.test(u)) ms = scan.today + 7 * n * DAY_MS;
  else ms = addMonths(scan.today, n);
  return { index, end, ms, monthOnly: false, soft: true };
}

// ---------------------------------------------------------------------------------------------------
// Reading the language, and chrono-node for what the scanner does not know.

const LANG_WORDS: Record<Lang, RegExp> = {
  en: /\b(the|and|i|i'm|am|will|be|until|back|office|please|you|me|my|with|after|on|in|to|of|for|this|not|now)\b/g,
  de: /\b(ich|und|bin|der|die|das|bis|wieder|im|nicht|sie|mit|ab|zum|dem|büro|urlaub|nach|bitte|ihre|mich|uns|wir|sich)\b/g,
  fr: /\b(je|le|la|les|et|suis|jusqu|retour|au|du|vous|pas|bureau|absent|absente|après|merci|moi|nous|des|est|serai)\b/g,
  es: /\b(el|los|las|y|estoy|hasta|del|vuelta|regreso|oficina|usted|con|después|que|por|para|gracias|estaré|nos|mi|es)\b/g,
};

function detectLang(lower: string): Lang {
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

/** The first half of a span of durations: "2-", "zwei oder ", "deux à ", "2 o ". */
const DURATION_SPAN = new RegExp(
  `${WB}(\\d{1,3}|${alt(Object.keys(NUMBER_WORDS))})\\s*(?:-|–|to|or|oder|bis|ou|à|o|a)\\s*$`,
  'i',
);

/** chrono-node's reading, kept only where it names a day (a number, a month or a weekday) the scanner missed. */
function chronoMentions(scan: Scan, replyDate: Date): Mention[] {
  const parser =
    scan.lang === 'de'
      ? chrono.de.casual
      : scan.lang === 'fr'
        ? chrono.fr.casual
        : scan.lang === 'es'
          ? chrono.es.casual
          : scan.us
            ? chrono.en.casual
            : chrono.en.GB;
  const out: Mention[] = [];
  for (const r of parser.parse(scan.text, { instant: replyDate, timezone: 0 }, { forwardDate: true })) {
    if (overlaps(scan, r.index, r.index + r.text.length)) continue;
    // "2-3 weeks", "zwei oder drei Wochen": a span of durations names no day.
    const before = scan.lower.slice(Math.max(0, r.index - 20), r.index);
    if (DURATION_SPAN.test(before) && !/\d{1,2}[./]\d/.test(r.text)) {
      continue;
    }
    if (!r.start.isCertain('day') && !r.start.isCertain('weekday') && !r.start.isCertain('month')) continue;
    if (
      !/\d/.test(r.text) &&
      !new RegExp(`${WB}(${alt(Object.keys(MONTH_WORDS))}|${alt(Object.keys(WEEKDAY_WORDS))})`, 'i').test(
        r.text,
      )
    ) {
      continue;
    }
    const d = r.start.date();
    out.push({
      index: r.index,
      end: r.index + r.text.length,
      ms: utc(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()),
      monthOnly: false,
      soft: !r.start.isCertain('day'),
    });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Cues and choosing.

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

function cueOf(text: string, m: Mention): Cue {
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

function isBack(text: string, m: Mention, nextIndex = Number.POSITIVE_INFINITY): boolean {
  const before = clauseBefore(text, m.index).slice(-40);
  if (BACK_WORDS.test(before)) return true;
  // German and Spanish often put the verb after the day: "ab dem 7.12. wieder im Büro", "a partir del
  // 2 estaré de vuelta": a back word within the next four words.
  const next = /^[\s,.]*((?:\S+\s+){0,4})/.exec(clauseAfter(text, m.end))?.[1] ?? '';
  // …unless the back word leads to the next day ("à compter du 12 et de retour le 20").
  if (nextIndex - m.end < 50) return false;
  return BACK_WORDS.test(next) && cueOf(text, m) !== 'until';
}

function hedged(text: string, m: Mention): boolean {
  return HEDGE.test(clauseBefore(text, m.index)) || HEDGE.test(clauseAfter(text, m.end));
}

/** What stands between the two days of a range. */
const RANGE_GAP = new RegExp(
  `^\\.?\\s*(?:-|–|—|to|till|until|through|thru|bis(?:\\s+(?:zum|einschließlich))?|au|jusqu['’]au|al|hasta(?:\\s+el)?)\\s*(?:(?:the|le|el|den|zum)\\s+)?$`,
  'i',
);

function mentionsOf(text: string, replyDate: Date): { scan: Scan; mentions: Mention[] } {
  const cleaned = ownWords(text);
  const scan = scanText(cleaned, replyDate, detectLang(cleaned.toLowerCase()));
  const all = [...scan.mentions, ...chronoMentions(scan, replyDate)].sort((a, b) => a.index - b.index);
  // Two days joined by a dash or a range word are a range: "23 Nov – 4 Dec", "vom 24.12. bis 03.01.".
  for (let i = 1; i < all.length; i += 1) {
    const gap = scan.lower.slice(all[i - 1].end, all[i].index);
    if (RANGE_GAP.test(gap) && !all[i - 1].monthOnly && !all[i].monthOnly) {
      all[i - 1].rangeStart ??= true;
      all[i].rangeEnd ??= true;
    }
  }
  const mentions = all.filter((m) => Number.isFinite(m.ms));
  return { scan, mentions };
}

function withinAYear(ms: number, today: number, allowToday: boolean): boolean {
  return (allowToday ? ms >= today : ms > today) && ms <= today + 366 * DAY_MS;
}

function nextMonthStart(ms: number): number {
  const d = new Date(ms);
  const next = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
  return firstWorkingDay(next.getUTCFullYear(), next.getUTCMonth() + 1);
}

/**
 * The day a "not now" reply asks to be contacted again, or null when it names none, a vague one, a
 * past one or one more than a year ahead. "after the 15th" and "busy until the 15th" give the 16th;
 * "after March" gives April; "until April" gives April; a month alone gives its first working day.
 */
export function readFollowUpDate(text: string, replyDate: Date): ReadDay | null {
  const { scan, mentions } = mentionsOf(text, replyDate);
  for (const m of mentions) {
    if (m.rangeStart) continue;
    if (m.soft && hedged(scan.text, m)) continue;
    const cue = cueOf(scan.text, m);
    let ms = m.ms;
    let monthOnly = m.monthOnly;
    if (cue === 'after' || (cue === 'until' && !monthOnly)) {
      if (monthOnly) ms = nextMonthStart(ms);
      else ms += DAY_MS;
    }
    if (cue === 'after' && monthOnly) monthOnly = true;
    if (!withinAYear(ms, scan.today, false)) continue;
    return { day: dayOfMs(ms), monthOnly };
  }
  return null;
}

/**
 * The day an away notice names as its author's return, or null. "until/bis/jusqu'au/hasta" gives the
 * last day away (`dayBack: false`); "back on/wieder ab/de retour le/regreso el" gives the day back
 * (`dayBack: true`); of a range, its last day; the start of an absence ("from", "seit") is never a
 * return. A day back wins over a last day away when both are written.
 */
export function readReturnDate(text: string, replyDate: Date): ReadDay | null {
  const { scan, mentions } = mentionsOf(text, replyDate);
  let back: ReadDay | null = null;
  let until: ReadDay | null = null;
  let plain: ReadDay | null = null;
  for (const [i, m] of mentions.entries()) {
    const cue = cueOf(scan.text, m);
    const isBackDay = isBack(scan.text, m, mentions[i + 1]?.index) || cue === 'after';
    let ms = m.ms;
    if (cue === 'after' && !m.monthOnly) ms += DAY_MS;
    if (!withinAYear(ms, scan.today, !isBackDay)) continue;
    const read = { day: dayOfMs(ms), monthOnly: m.monthOnly };
    if (isBackDay) {
      back ??= { ...read, dayBack: true };
    } else if (cue === 'until') {
      until = { ...read, dayBack: false };
    } else if (cue === 'none' && !m.rangeStart) {
      plain ??= { ...read, dayBack: false };
    }
  }
  return back ?? until ?? plain;
}

// ---------------------------------------------------------------------------------------------------
// The reply's own words: no quoted history, no signature.

const QUOTE_START =
  /^\s*(?:-{2,}\s*(?:original message|ursprüngliche nachricht|originalnachricht|message d'origine|mensaje original|forwarded message|weitergeleitete nachricht|message transféré)|>?\s*(?:on|am|le|el)\s.{4,200}\b(?:wrote|schrieb|a écrit|escribió)\b.{0,200}:?|(?:from|von|de)\s*:\s*.+|_{10,})\s*$/i;
const SIGNATURE_START =
  /^\s*(?:--\s*|(?:mit\s+)?(?:freundlichen|besten|herzlichen|viele|beste|liebe)\s+gr(?:ü|ue)(?:ß|ss)en?.*|(?:best|kind|warm)(?:\s+regards|\s+wishes)?[,.!]?|regards[,.!]?|cheers[,.!]?|sincerely[,.!]?|(?:bien\s+)?cordialement[,.!]?|bien à vous[,.!]?|(?:un\s+)?(?:cordial\s+)?saludos?(?:\s+cordiales)?[,.!]?|atentamente[,.!]?|sent from my .*|von meinem .* gesendet|envoyé de mon .*|enviado desde mi .*)\s*$/i;

/** How much of a reply is read: what a person writes about dates and colleagues comes first (and the scan stays cheap). */
const MAX_CHARS = 4000;

function ownWords(text: string): string {
  const lines = text.slice(0, 100_000).replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  for (const line of lines) {
    if (QUOTE_START.test(line)) break;
    if (out.length > 0 && SIGNATURE_START.test(line)) break;
    if (/^\s*>/.test(line)) continue;
    out.push(line);
  }
  return out.join('\n').slice(0, MAX_CHARS);
}

// ---------------------------------------------------------------------------------------------------
// Referrals.

const ADDRESS = /(?<![\w.%+'-])[A-Za-z0-9._%+'-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
const SYSTEM_LOCAL = /^(no-?reply|do-?not-?reply|mailer-daemon|postmaster|bounces?)$/i;
const REFERRAL_CUE =
  /\b(contact|reach(?:ing)? out|speak (?:to|with)|talk (?:to|with)|ask|email|e-mail|write to|in charge|responsible|handles?|the right (?:person|contact)|colleague|instead|kontaktieren|wenden|zuständig|ansprechpartner(?:in)?|kolleg(?:e|in)|schreiben sie|kümmert|contactez|adresser|collègue|responsable|s'occupe|gère|écrire|voyez|contacte|escriba|escribir|compañer[oa]|encargad[oa]|hable)/i;
/** Words that stand before a name but are not part of it (titles, roles, sentence words). */
const NOT_A_NAME = new Set(
  [
    'please',
    'contact',
    'try',
    'ask',
    'email',
    'mail',
    'the',
    'our',
    'my',
    'mr',
    'mrs',
    'ms',
    'dr',
    'prof',
    'herr',
    'frau',
    'herrn',
    'kollege',
    'kollegin',
    'bitte',
    'kontaktieren',
    'sie',
    'mein',
    'meine',
    'ansprechpartner',
    'ansprechpartnerin',
    'zuständig',
    'ist',
    'head',
    'sales',
    'lead',
    'manager',
    'director',
    'ceo',
    'cto',
    'cfo',
    'm',
    'mme',
    'mlle',
    'monsieur',
    'madame',
    'contactez',
    'plutôt',
    'collègue',
    'merci',
    "c'est",
    'sr',
    'sra',
    'don',
    'doña',
    'señor',
    'señora',
    'escriba',
    'a',
    'compañero',
    'compañera',
    'responsable',
    'el',
    'la',
    'es',
    'hable',
    'con',
    'de',
    'to',
    'at',
    'is',
    'team',
    'you',
    'i',
    'wrong',
    'not',
    'me',
    'vertretung',
    'assistant',
  ].map((w) => w.toLowerCase()),
);
const NAME_WORD = /^[A-ZÀ-ÝÄÖÜ][\p{L}'’-]*\.?$/u;
const PARTICLE = /^(von|van|de|del|della|la|le|du|da|di|der|den|y|zu)$/;

function nameFromWords(words: string[]): { firstName: string | null; lastName: string | null } {
  const clean = words.map((w) => w.replace(/[.,:;]+$/, ''));
  // The last run of capitalised words (with name particles inside), without titles and sentence words.
  const run: string[] = [];
  for (let i = clean.length - 1; i >= 0; i -= 1) {
    const w = clean[i];
    if (NAME_WORD.test(w) && !NOT_A_NAME.has(w.toLowerCase())) run.unshift(w);
    else if (run.length > 0 && PARTICLE.test(w) && i > 0 && NAME_WORD.test(clean[i - 1])) run.unshift(w);
    else break;
    if (run.length >= 4) break;
  }
  while (run.length > 0 && PARTICLE.test(run[0])) run.shift();
  if (run.length === 0) return { firstName: null, lastName: null };
  return { firstName: run[0], lastName: run.length > 1 ? run.slice(1).join(' ') : null };
}

function nameNear(
  text: string,
  index: number,
  end: number,
): { firstName: string | null; lastName: string | null } {
  // "jane@acme.com (Jane Doe)"
  const after = /^\s*[(<[]\s*([^()<>[\]@\n]{2,60}?)\s*[)>\]]/.exec(text.slice(end, end + 70));
  if (after) {
    const got = nameFromWords(after[1].trim().split(/\s+/));
    if (got.firstName) return got;
  }
  // "Jane Doe <jane@acme.com>", "Max Braun (max@...)", "Laura King: laura@...", "Peter Brown at peter@..."
  let before = text.slice(Math.max(0, index - 80), index);
  before = before.replace(
    /(?:\s*(?:[(<[:,–—-]|<mailto:)\s*|\s+(?:at|unter|à l['’]adresse|en|a través de|via|per|:)\s*)+$/i,
    '',
  );
  const sentence = before.split(/[.!?;\n]\s+|\n/).pop() ?? before;
  const words = sentence.trim().split(/\s+/).filter(Boolean);
  const adjacent = nameFromWords(words);
  if (adjacent.firstName) return adjacent;
  return confirmedName(sentence, text.slice(index, end).split('@')[0]);
}

const fold = (s: string): string =>
  s
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z]/g, '');

/**
 * A name further back in the sentence ("C'est Mme Sophie Bernard qui gère ce sujet : sophie.bernard@…"),
 * taken only when the address's local part carries its first or last name.
 */
function confirmedName(
  sentence: string,
  local: string,
): { firstName: string | null; lastName: string | null } {
  const words = sentence.trim().split(/\s+/).filter(Boolean);
  const localFolded = fold(local);
  for (let end = words.length; end > 0; end -= 1) {
    const got = nameFromWords(words.slice(0, end));
    if (!got.firstName || !got.lastName) continue;
    const parts = [got.firstName, ...got.lastName.split(/\s+/)].map(fold).filter((p) => p.length >= 2);
    if (parts.some((p) => localFolded.includes(p))) return got;
  }
  return { firstName: null, lastName: null };
}

/**
 * The person a "wrong person" reply points to: an address at the replier's own registrable domain (not
 * the replier's own), the one nearest a referral cue ("please contact", "mein Kollege", "contactez",
 * "escriba a") or else the first; never one from the quoted history or the signature. First and last
 * name come from the words around the address ("Jane Doe <jane@acme.com>", "jane@acme.com (Jane Doe)").
 */
export function readReferral(
  text: string,
  replierEmail: string,
  options: ReadReferralOptions = {},
): ReadReferral | null {
  const replier = replierEmail.trim().toLowerCase();
  const own = parseDomain(replier.split('@').pop() ?? '').domain;
  if (!own) return null;
  const excluded = new Set([replier, ...(options.exclude ?? []).map((e) => e.toLowerCase())]);
  const words = ownWords(text);
  const seen = new Set<string>();
  const candidates: { email: string; index: number; end: number; sameDomain: boolean; cued: boolean }[] = [];
  for (const match of words.matchAll(ADDRESS)) {
    const email = match[0].replace(/\.+$/, '').toLowerCase();
    const index = match.index ?? 0;
    if (excluded.has(email) || seen.has(email)) continue;
    seen.add(email);
    const [local, domain] = email.split('@');
    if (SYSTEM_LOCAL.test(local)) continue;
    const sameDomain = parseDomain(domain).domain === own;
    if (!sameDomain && !options.anyDomain) continue;
    const clause =
      words
        .slice(Math.max(0, index - 80), index)
        .split(/[.!?;\n]\s/)
        .pop() ?? '';
    candidates.push({
      email,
      index,
      end: index + match[0].length,
      sameDomain,
      cued: REFERRAL_CUE.test(clause),
    });
  }
  const pick =
    candidates.find((c) => c.sameDomain && c.cued) ??
    candidates.find((c) => c.sameDomain) ??
    candidates.find((c) => c.cued) ??
    candidates[0];
  if (!pick) return null;
  const name = nameNear(words, pick.index, pick.end);
  return {
    email: pick.email,
    firstName: name.firstName,
    lastName: name.lastName,
    sameDomain: pick.sameDomain,
  };
}
