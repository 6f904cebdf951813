/**
 * When the engine may next try a step of a campaign that is outside its sending window. The window
 * itself (timezone, days, start/end) is the campaigns module's `windowContains`; this file only looks
 * ahead for the next opening, minute by minute, so daylight-saving shifts are handled by Intl.
 */
import type { CampaignSchedule } from '../../campaigns/entities/campaign.entity.js';
import { windowContains } from '../../campaigns/schedule.js';

const MINUTE = 60_000;
/** A window opens at least once a week; look a little further to be safe. */
const HORIZON_MINUTES = 8 * 24 * 60;

/** True when sending is allowed at `at`; a campaign without a schedule sends at any time. */
export function insideWindow(schedule: CampaignSchedule | null, at: Date): boolean {
  return !schedule || windowContains(schedule, at);
}

/**
 * The first whole minute at or after `from` inside the window, or null when the schedule never opens
 * (no days); callers then retry after a day.
 */
export function nextWindowOpening(schedule: CampaignSchedule | null, from: Date): Date | null {
  if (insideWindow(schedule, from)) return from;
  let t = Math.ceil(from.getTime() / MINUTE) * MINUTE;
  // Coarse hour steps while the local day is not a sending day, then minute steps to the edge.
  for (let i = 0; i < HORIZON_MINUTES;) {
    const probe = new Date(t);
    if (insideWindow(schedule, probe)) {
      // Step back to the first minute of this opening (we may have jumped in with a 15 min stride).
      let first = t;
      while (first - MINUTE >= from.getTime() && insideWindow(schedule, new Date(first - MINUTE)))
        first -= MINUTE;
      return new Date(first);
    }
    t += 15 * MINUTE;
    i += 15;
  }
  return null;
}
