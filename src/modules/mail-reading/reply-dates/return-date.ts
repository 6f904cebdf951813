/** The day an away notice names as its author's return. */
import { DAY_MS, dayOfMs, withinAYear } from './calendar.js';
import { cueOf, isBack } from './cues.js';
import { mentionsOf } from './mentions.js';
import type { ReadDay } from './types.js';

/**
 * The day an away notice names as its author's return, or null. "until/bis/jusqu'au/hasta" gives the
 * last day away (`dayBack: false`); "back on/wieder ab/de retour le/regreso el" gives the day back
 * (`dayBack: true`); of a range, its last day; the start of an absence ("from", "seit") is never a
 * return. A day back wins over a last day away when both are written.
 */
export function readReturnDate(text: string, replyDate: Date): ReadDay | null {
  const { scan, mentions } = mentionsOf(text, replyDate);
  let back: ReadDay | null = null;
  let until: ReadDay | null = null;
  let plain: ReadDay | null = null;
  for (const [i, m] of mentions.entries()) {
    const cue = cueOf(scan.text, m);
    const isBackDay = isBack(scan.text, m, mentions[i + 1]?.index) || cue === 'after';
    let ms = m.ms;
    if (cue === 'after' && !m.monthOnly) ms += DAY_MS;
    if (!withinAYear(ms, scan.today, !isBackDay)) continue;
    const read = { day: dayOfMs(ms), monthOnly: m.monthOnly };
    if (isBackDay) {
      back ??= { ...read, dayBack: true };
    } else if (cue === 'until') {
      until = { ...read, dayBack: false };
    } else if (cue === 'none' && !m.rangeStart) {
      plain ??= { ...read, dayBack: false };
    }
  }
  return back ?? until ?? plain;
}
