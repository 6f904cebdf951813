/**
 * Campaign sending windows: an IANA timezone, weekdays `mon`..`sun`, and a daily window
 * `start_time` (inclusive) to `end_time` (exclusive, may be `24:00`) in that timezone. Windows do not
 * cross midnight: `end_time` must be later than `start_time`.
 */
import { isTimezone, zoneFormatter } from '../../common/time/time-zones.js';
import type { CampaignSchedule, Weekday } from './entities/campaign.entity.js';

export const WEEKDAYS: readonly Weekday[] = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
export const TIME_RE = /^(?:[01]\d|2[0-3]):[0-5]\d$|^24:00$/;

/**
 * True for an IANA zone name Node knows, in any spelling (`Europe/Paris`, `utc`, `US/Eastern`);
 * offsets and abbreviations are not names. The lookup cache is bounded (common/time/time-zones.ts).
 */
export function isIanaTimezone(tz: unknown): tz is string {
  return isTimezone(tz);
}

export const minutes = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** The first problem of a schedule as `{field, message}` (field relative to `schedule`), or null. */
export function scheduleProblem(
  s: CampaignSchedule | null | undefined,
): { field: string; message: string } | null {
  if (!s || typeof s !== 'object') return { field: 'schedule', message: 'schedule is required' };
  if (!isIanaTimezone(s.timezone)) {
    return { field: 'schedule.timezone', message: 'schedule.timezone must be an IANA time zone name' };
  }
  if (!Array.isArray(s.days) || s.days.length === 0) {
    return { field: 'schedule.days', message: 'schedule.days must list at least one of mon..sun' };
  }
  for (let i = 0; i < s.days.length; i++) {
    if (!WEEKDAYS.includes(s.days[i])) {
      return { field: `schedule.days.${i}`, message: `schedule.days.${i} must be one of mon..sun` };
    }
  }
  if (new Set(s.days).size !== s.days.length) {
    return { field: 'schedule.days', message: 'schedule.days must not repeat a day' };
  }
  if (typeof s.start_time !== 'string' || !TIME_RE.test(s.start_time) || s.start_time === '24:00') {
    return { field: 'schedule.start_time', message: 'schedule.start_time must be HH:MM from 00:00 to 23:59' };
  }
  if (typeof s.end_time !== 'string' || !TIME_RE.test(s.end_time)) {
    return { field: 'schedule.end_time', message: 'schedule.end_time must be HH:MM from 00:01 to 24:00' };
  }
  if (minutes(s.end_time) <= minutes(s.start_time)) {
    return {
      field: 'schedule.end_time',
      message: 'schedule.end_time must be later than schedule.start_time',
    };
  }
  return null;
}

/** Weekday and minute of the day of `at` in `timezone` (one formatter per canonical zone, bounded). */
export function localTime(timezone: string, at: Date): { day: Weekday; minute: number } {
  const fmt = zoneFormatter(timezone);
  const parts = Object.fromEntries(fmt.formatToParts(at).map((p) => [p.type, p.value]));
  const day = String(parts.weekday).slice(0, 3).toLowerCase() as Weekday;
  return { day, minute: Number(parts.hour) * 60 + Number(parts.minute) };
}

/**
 * True when `at` falls inside the schedule's window (start inclusive, end exclusive), its days and
 * hours read in `timezone` (default: the schedule's; a campaign sending in the contact's timezone
 * passes the contact's).
 */
export function windowContains(s: CampaignSchedule, at: Date, timezone: string = s.timezone): boolean {
  const { day, minute } = localTime(timezone, at);
  return s.days.includes(day) && minute >= minutes(s.start_time) && minute < minutes(s.end_time);
}

/** Whether two schedules open the same window (the order of `days` does not matter). */
export function sameSchedule(a: CampaignSchedule | null, b: CampaignSchedule | null): boolean {
  if (a === null || b === null) return a === b;
  return (
    a.timezone === b.timezone &&
    a.start_time === b.start_time &&
    a.end_time === b.end_time &&
    [...a.days].sort().join() === [...b.days].sort().join()
  );
}
