/**
 * Periods that name a day: a calendar week ("KW 50", "ab KW 2", "Kalenderwoche 3", "calendar week 50",
 * "CW 2") is the Monday of that ISO week; "end of next week" is next week's Friday; the end of this
 * month or year is its last day.
 */
import { DAY_MS, daysInMonth, mondayOfNextWeek, utc } from './calendar.js';
import { each, type Scan } from './scan.js';
import { WE } from './words.js';

/** The Monday of ISO week 1: the week holding 4 January. */
function mondayOfWeekOne(year: number): number {
  const jan4 = utc(year, 1, 4);
  return jan4 - ((new Date(jan4).getUTCDay() + 6) % 7) * DAY_MS;
}

/** The ISO weeks of a year: 53 when 28 December falls in week 53. */
const weeksIn = (year: number): number =>
  Math.round((mondayOfWeekOne(year + 1) - mondayOfWeekOne(year)) / (7 * DAY_MS));

/** The Monday of ISO week `week`: of `year` when given, else this year's unless that week is over. */
export function mondayOfIsoWeek(week: number, today: number, year?: number): number {
  const thisYear = new Date(today).getUTCFullYear();
  const at = (y: number): number =>
    week >= 1 && week <= weeksIn(y) ? mondayOfWeekOne(y) + (week - 1) * 7 * DAY_MS : Number.NaN;
  if (year) return at(year);
  // The reply's ISO year may be the next one (29–31 December) or the last (1–3 January).
  for (const y of [thisYear - 1, thisYear, thisYear + 1]) {
    const monday = at(y);
    if (monday + 6 * DAY_MS >= today) return monday;
  }
  return Number.NaN;
}

const WISH =
  /(?:bonne|belle|excellente|joyeuse|heureuse|happy|good|great|nice|feliz|buen[ao]?|schöne[ns]?|gute[ns]?)\s+$/i;

export function scanPeriods(scan: Scan): void {
  each(
    scan,
    `(?:kw|kalenderwoche|cw|calendar\\s+week)\\.?\\s*-?\\s*(\\d{1,2})(?:\\s*[/'’]\\s*(\\d{4}|\\d{2}))?(?!\\d)|(\\d{1,2})\\.\\s*(?:kw|kalenderwoche)${WE}`,
    (m) => {
      const year = m[2] ? Number(m[2].length === 2 ? `20${m[2]}` : m[2]) : undefined;
      return {
        index: m.index,
        end: m.index + m[0].length,
        ms: mondayOfIsoWeek(Number(m[1] ?? m[3]), scan.today, year),
        monthOnly: false,
        soft: false,
      };
    },
  );
  // "end of next week", "Ende nächster Woche", "fin de la semaine prochaine", "a finales de la semana que viene".
  each(
    scan,
    `(?:(?:the\\s+)?end of next week|ende (?:der )?(?:nächste[nr]?|kommende[nr]?) woche|(?:la\\s+)?fin de la semaine prochaine|fin(?:al)?(?:es)? de la (?:semana que viene|pr[oó]xima semana|semana pr[oó]xima))${WE}`,
    (m) => ({
      index: m.index,
      end: m.index + m[0].length,
      ms: mondayOfNextWeek(scan.today) + 4 * DAY_MS,
      monthOnly: false,
      soft: true,
    }),
  );
  // The end of the month or of the year: "end of the month", "Ende des Jahres", "fin du mois", "finales de mes".
  each(
    scan,
    `(?:the\\s+)?(?:end of (?:the |this )?(month|year)|ende (?:des|dieses) (monats|jahres)|(monats|jahres)ende|(?:la\\s+)?fin (?:du |de l['’]|d['’]|de la |de )?(mois|année|annee|an)|fin(?:al)?(?:es)? de(?:l| este)? (mes|año))${WE}`,
    (m) => {
      // "Bonne fin d'année", "happy end of the year", "feliz fin de año" wish the period well: no day.
      if (WISH.test(scan.lower.slice(Math.max(0, m.index - 20), m.index))) return null;
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
}
