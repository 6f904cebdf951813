/**
 * What a reply's own words say about *when* and *whom* (sequences that react): the day a "not now"
 * wants to hear back, the day an away notice names, and a person a "wrong person" reply points to.
 * Pure: no database, no network. Callers pass the reply's own words (quoted history removed,
 * `reply-categories/reply-text.ts`) and the reply's `Date`.
 *
 * Days are calendar days (`YYYY-MM-DD`) as written; turning one into an instant (the campaign's start
 * time in the contact's time zone, the first working day after an away date) is the caller's rule.
 *
 * This is the first version: chrono-node's English, German, French and Spanish parsers, forward
 * dates only. The date-reading page of docs/ says how it is measured.
 */
import * as chrono from 'chrono-node';
import { parse as parseDomain } from 'tldts';

export interface ReadDay {
  /** The calendar day, `YYYY-MM-DD`. */
  day: string;
  /** True when the text named a month alone ("in March"): `day` is that month's first working day. */
  monthOnly: boolean;
}

export interface ReadReferral {
  email: string;
  firstName: string | null;
  lastName: string | null;
}

const PARSERS = [chrono.en.casual, chrono.de.casual, chrono.fr.casual, chrono.es.casual];

function isoDay(year: number, month: number, day: number): string {
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

function dayOf(date: Date): string {
  return isoDay(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate());
}

function firstWorkingDay(year: number, month: number): string {
  for (let d = 1; d <= 7; d += 1) {
    const wd = new Date(Date.UTC(year, month - 1, d)).getUTCDay();
    if (wd !== 0 && wd !== 6) return isoDay(year, month, d);
  }
  return isoDay(year, month, 1);
}

function firstForwardResult(text: string, ref: Date): chrono.ParsedResult | null {
  for (const parser of PARSERS) {
    const results = parser.parse(text, { instant: ref, timezone: 0 }, { forwardDate: true });
    if (results.length > 0) return results[0];
  }
  return null;
}

function toReadDay(result: chrono.ParsedResult): ReadDay {
  const start = result.start;
  const year = start.get('year') ?? 0;
  const month = start.get('month') ?? 1;
  const monthOnly = !start.isCertain('day') && start.isCertain('month') && !start.isCertain('weekday');
  if (monthOnly) return { day: firstWorkingDay(year, month), monthOnly: true };
  return { day: dayOf(start.date()), monthOnly: false };
}

function withinAYear(day: string, ref: Date): boolean {
  const today = dayOf(ref);
  const limit = new Date(ref.getTime() + 366 * 86_400_000);
  return day > today && day <= dayOf(limit);
}

/** The day a "not now" reply asks to be contacted again, or null when it names none (or a past one). */
export function readFollowUpDate(text: string, replyDate: Date): ReadDay | null {
  const result = firstForwardResult(text, replyDate);
  if (!result) return null;
  const read = toReadDay(result);
  return withinAYear(read.day, replyDate) ? read : null;
}

/** The day an away notice names as its author's return (or the end of the absence), or null. */
export function readReturnDate(text: string, replyDate: Date): ReadDay | null {
  const result = firstForwardResult(text, replyDate);
  if (!result) return null;
  const read = toReadDay(result.end ? { ...result, start: result.end } : result);
  return withinAYear(read.day, replyDate) ? read : null;
}

const ADDRESS = /[A-Za-z0-9._%+'-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;

/**
 * The first address the text names at the replier's own registrable domain (not the replier's own),
 * with a first and last name when the words just before it give one ("Jane Doe (jane@acme.com)").
 */
export function readReferral(text: string, replierEmail: string): ReadReferral | null {
  const own = parseDomain(replierEmail.split('@').pop() ?? '').domain;
  if (!own) return null;
  for (const match of text.matchAll(ADDRESS)) {
    const email = match[0].replace(/\.+$/, '').toLowerCase();
    if (email === replierEmail.toLowerCase()) continue;
    if (parseDomain(email.split('@').pop() ?? '').domain !== own) continue;
    const before = text.slice(Math.max(0, (match.index ?? 0) - 60), match.index).replace(/[(<:\s]+$/, '');
    const name = /([A-ZÀ-Ý][\p{L}'-]+)\s+([A-ZÀ-Ý][\p{L}'-]+)$/u.exec(before);
    return { email, firstName: name?.[1] ?? null, lastName: name?.[2] ?? null };
  }
  return null;
}
