/**
 * When the engine may send a step: inside the campaign's sending window and not before its scheduled
 * start (`start_at`). The window itself (days, start/end) is the campaigns module's `windowContains`,
 * read in the schedule's timezone or, for a campaign with `send_in_contact_timezone`, in the
 * contact's. Everything is computed from what the claim already loaded: no query per send.
 *
 * The next opening is found by walking forward through time in jumps that can never pass it: the local
 * clock tells how far the next possible opening is (the window's start today, or the next local
 * midnight), and the walk jumps that far less an hour, the most a daylight-saving change can move the
 * clock (Lord Howe moves it by 30 minutes), then minute by minute over the last hour. Intl does every
 * conversion, so daylight-saving changes and zones far from UTC (Kiritimati +14, St John's −3:30)
 * need no special case.
 */
import type { CampaignSchedule } from '../../campaigns/entities/campaign.entity.js';
import { canonicalTimezone } from '../../../common/time/time-zones.js';
import { localTime, minutes, windowContains } from '../../campaigns/schedule.js';

const MINUTE = 60_000;
const DAY_MINUTES = 24 * 60;
/** The most a daylight-saving change moves a local clock. */
const MAX_CLOCK_SHIFT_MINUTES = 60;
/** A window opens at least once a week; look a little further to be safe. */
const HORIZON_MS = 8 * DAY_MINUTES * MINUTE;

/** What decides when a campaign may send to one contact, besides its schedule. */
export interface SendTiming {
  /** The zone the schedule is read in (default: the schedule's own). */
  timezone?: string;
  /** The campaign's scheduled start: nothing is sent before it. */
  startAt?: Date | null;
}

/**
 * The zone a campaign's schedule is read in for a contact: the contact's `timezone` (its canonical
 * IANA name) when the campaign sends in the contact's timezone and the contact has a valid one, else
 * the schedule's.
 */
export function sendingTimezone(
  schedule: CampaignSchedule | null,
  inContactTimezone: boolean,
  contactTimezone: unknown,
): string | undefined {
  const contactZone = inContactTimezone ? canonicalTimezone(contactTimezone) : undefined;
  return contactZone ?? schedule?.timezone;
}

/** True when sending is allowed at `at`; a campaign without a schedule sends at any time. */
export function insideWindow(schedule: CampaignSchedule | null, at: Date, timezone?: string): boolean {
  return !schedule || windowContains(schedule, at, timezone ?? schedule.timezone);
}

/**
 * Minutes of local time from `at` to the next moment the window could open: its start today, or the
 * next local midnight when today is not a sending day or today's window is over (0: inside).
 */
function localMinutesToOpening(s: CampaignSchedule, timezone: string, at: Date): number {
  const { day, minute } = localTime(timezone, at);
  const start = minutes(s.start_time);
  if (s.days.includes(day) && minute < start) return start - minute;
  if (s.days.includes(day) && minute < minutes(s.end_time)) return 0;
  return DAY_MINUTES - minute;
}

/**
 * The first instant at or after `from` (and after `timing.startAt`) when sending is allowed: `from`
 * itself when it is, else a whole minute. Null when the schedule never opens (no days); callers then
 * retry after a day.
 */
export function nextWindowOpening(
  schedule: CampaignSchedule | null,
  from: Date,
  timing: SendTiming = {},
): Date | null {
  const start = timing.startAt && timing.startAt.getTime() > from.getTime() ? timing.startAt : from;
  const timezone = timing.timezone ?? schedule?.timezone;
  if (!schedule || !timezone) return start;
  if (windowContains(schedule, start, timezone)) return start;
  if (schedule.days.length === 0) return null;
  let t = Math.ceil(start.getTime() / MINUTE) * MINUTE;
  const horizon = start.getTime() + HORIZON_MS;
  while (t <= horizon) {
    const ahead = localMinutesToOpening(schedule, timezone, new Date(t));
    if (ahead === 0) return new Date(t);
    t += Math.max(1, ahead - MAX_CLOCK_SHIFT_MINUTES) * MINUTE;
  }
  return null;
}
