/** The day a "not now" reply asks to be contacted again. */
import { DAY_MS, dayOfMs, nextMonthStart, withinAYear } from './calendar.js';
import { cueOf, hedged } from './cues.js';
import { mentionsOf } from './mentions.js';
import type { ReadDay } from './types.js';

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
