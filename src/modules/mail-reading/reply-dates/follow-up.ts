/** The day a "not now" reply asks to be contacted again. */
import { DAY_MS, dayOfMs, nextMonthStart, withinAYear } from './calendar.js';
import { contactRequest, cueOf, hedged } from './cues.js';
import { mentionsOf } from './mentions.js';
import type { Mention, Scan } from './scan.js';
import type { ReadDay } from './types.js';

/**
 * The day a "not now" reply asks to be contacted again, or null when it names none, a vague one, a
 * past one or one more than a year ahead. "after the 15th" and "busy until the 15th" give the 16th;
 * "after March" gives April; "until April" gives April; a month alone gives its first working day.
 */
export function readFollowUpDate(text: string, replyDate: Date): ReadDay | null {
  const { scan, mentions } = mentionsOf(text, replyDate);
  // The day in a sentence that asks to be contacted ("follow up on", "melden Sie sich am", "recontactez-moi
  // le", "escríbeme a partir del") comes first; other time words are the reply's context.
  // A request written before the day names it more surely than one after it ("first week of December —
  // could you follow up on 12/07?").
  const asked = (where: 'before' | 'after'): Mention[] =>
    mentions.filter((m) => contactRequest(scan.text, m) === where);
  return firstDay(scan, asked('before')) ?? firstDay(scan, asked('after')) ?? firstDay(scan, mentions);
}

function firstDay(scan: Scan, mentions: Mention[]): ReadDay | null {
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
