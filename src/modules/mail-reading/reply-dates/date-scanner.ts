/**
 * The scanner: every way the four languages write a day, each a pattern that adds its mentions to the
 * scan (the first pattern to claim a stretch of text wins, so longer forms come first).
 */
import {
  DAY_MS,
  firstWorkingDay,
  mondayOfNextWeek,
  nextDayOfMonth,
  nextWeekday,
  utc,
  validDate,
} from './calendar.js';
import { monthFirst } from './language.js';
import { claimNotDates } from './not-dates.js';
import { dayMs, each, monthMention, relative, type Scan } from './scan.js';
import type { Lang } from './types.js';
import { scanPeriods } from './periods.js';
import {
  ARTICLE,
  DAY,
  LONG_MONTHS,
  MONTH,
  MONTH_WORDS,
  NUM,
  WB,
  WE,
  WEEKDAY,
  WEEKDAY_WORDS,
  YEAR_TAIL,
} from './words.js';

const MONTH_PREPOSITION = new RegExp(
  `${WB}(in|im|en|ab|from|until|till|by|after|before|bis|nach|vor|seit|jusqu['’]en|jusqu['’]à|jusqu['’]au|après|avant|dès|hasta|después de|antes de|desde|a partir de|à partir de|around|vers|gegen|for|of|de|d['’]|during|während|pendant|durante|mois de|mes de|monat)\\s*$`,
  'i',
);

export function scanText(text: string, replyDate: Date, lang: Lang): Scan {
  const lower = text.toLowerCase();
  const today = utc(replyDate.getUTCFullYear(), replyDate.getUTCMonth() + 1, replyDate.getUTCDate());
  const scan: Scan = { text, lower, today, lang, us: monthFirst(lower, lang, today), mentions: [] };
  claimNotDates(scan);
  scanPeriods(scan);

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
    `(?:(?:next|this|coming|on|nächsten|kommenden|diesen|am|el\\s+pr[oó]ximo|el|le|ce|este|pr[oó]ximo)\\s+)?${WEEKDAY}(?:\\s+(?:prochain|que viene|pr[oó]ximo))?(?:,?\\s+(?:the\\s+|den\\s+)?(\\d{1,2})(?:st|nd|rd|th|er|\\.(?!\\d))?(?![\\d/:]|\\.\\d))?${WE}`,
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
