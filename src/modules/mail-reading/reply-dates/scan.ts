/**
 * A scan of a reply's words: the day mentions found so far, and the helpers each date format of the
 * scanner (`date-scanner.ts`) adds its mentions with.
 */
import {
  DAY_MS,
  addMonths,
  daysInMonth,
  firstWorkingDay,
  utc,
  validDate,
  yearFor,
  yearForMonth,
} from './calendar.js';
import type { Lang } from './types.js';
import { NUMBER_WORDS, WB } from './words.js';

export interface Mention {
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

export interface Scan {
  text: string;
  lower: string;
  today: number;
  lang: Lang;
  us: boolean;
  mentions: Mention[];
}

export function overlaps(scan: Scan, index: number, end: number): boolean {
  return scan.mentions.some((m) => index < m.end && end > m.index);
}

function add(scan: Scan, m: Mention): void {
  if (!overlaps(scan, m.index, m.end)) scan.mentions.push(m);
}

export function each(
  scan: Scan,
  pattern: string,
  fn: (match: RegExpExecArray) => Mention | Mention[] | null,
): void {
  const re = new RegExp(`${WB}${pattern}`, 'giu');
  for (const match of scan.lower.matchAll(re)) {
    const index = match.index ?? 0;
    if (overlaps(scan, index, index + match[0].length)) continue;
    const out = fn(match as RegExpExecArray);
    if (!out) continue;
    for (const m of Array.isArray(out) ? out : [out]) add(scan, m);
  }
}

export function dayMs(scan: Scan, day: number, month: number, year?: string): number {
  if (year) {
    const y = Number(year);
    return validDate(y, month, day) ? utc(y, month, day) : Number.NaN;
  }
  const y = yearFor(month, day, scan.today);
  return y !== null && validDate(y, month, day) ? utc(y, month, day) : Number.NaN;
}

export function monthMention(
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

export function relative(scan: Scan, index: number, end: number, num: string, unit: string): Mention | null {
  const n = /^\d+$/.test(num) ? Number(num) : NUMBER_WORDS[num.toLowerCase()];
  if (!n) return null;
  const u = unit.toLowerCase();
  let ms: number;
  if (/^(day|tag|jour|d[ií]a)/.test(u)) ms = scan.today + n * DAY_MS;
  else if (/^(week|woche|semaine|semana)/.test(u)) ms = scan.today + 7 * n * DAY_MS;
  else ms = addMonths(scan.today, n);
  return { index, end, ms, monthOnly: false, soft: true };
}
