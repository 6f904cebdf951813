/** Calendar helpers, all in UTC: a day is a calendar day, never an instant. */

export const DAY_MS = 86_400_000;

export function isoDay(year: number, month: number, day: number): string {
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

export function utc(year: number, month: number, day: number): number {
  return Date.UTC(year, month - 1, day);
}

export function dayOfMs(ms: number): string {
  const d = new Date(ms);
  return isoDay(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate());
}

export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

export function validDate(year: number, month: number, day: number): boolean {
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

export function firstWorkingDay(year: number, month: number): number {
  for (let d = 1; d <= 7; d += 1) {
    const wd = new Date(utc(year, month, d)).getUTCDay();
    if (wd !== 0 && wd !== 6) return utc(year, month, d);
  }
  return utc(year, month, 1);
}

export function addMonths(ms: number, n: number): number {
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
export function yearFor(month: number, day: number, today: number): number | null {
  const year = new Date(today).getUTCFullYear();
  if (!validDate(year, month, day) && !validDate(year + 1, month, day)) return null;
  const thisYear = validDate(year, month, day) ? utc(year, month, day) : Number.NaN;
  if (thisYear >= today) return year;
  if (today - thisYear <= RECENT_PAST_DAYS * DAY_MS) return year;
  return year + 1;
}

/** The year of a yearless month: this year's unless the month is already over. */
export function yearForMonth(month: number, today: number): number {
  const d = new Date(today);
  return month < d.getUTCMonth() + 1 ? d.getUTCFullYear() + 1 : d.getUTCFullYear();
}

/** The next day with this day of the month, from today on. */
export function nextDayOfMonth(today: number, day: number): number {
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
export function nextWeekday(today: number, weekday: number): number {
  const wd = new Date(today).getUTCDay();
  const diff = (weekday - wd + 7) % 7 || 7;
  return today + diff * DAY_MS;
}

export function mondayOfNextWeek(today: number): number {
  const wd = new Date(today).getUTCDay();
  return today + ((8 - wd) % 7 || 7) * DAY_MS;
}

/** A day ahead of the reply (or the reply's own day, when allowed), at most a year on. */
export function withinAYear(ms: number, today: number, allowToday: boolean): boolean {
  return (allowToday ? ms >= today : ms > today) && ms <= today + 366 * DAY_MS;
}

export function nextMonthStart(ms: number): number {
  const d = new Date(ms);
  const next = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
  return firstWorkingDay(next.getUTCFullYear(), next.getUTCMonth() + 1);
}
