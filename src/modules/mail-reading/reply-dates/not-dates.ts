/**
 * Numbers that look like days but are not: phone numbers and office hours. Each is claimed in the scan
 * as a mention without a day (`ms` NaN), so that no date pattern and no chrono-node reading takes it.
 */
import { each, type Mention, type Scan } from './scan.js';
import { WEEKDAY, WEEKDAY_WORDS } from './words.js';

/** Short weekday names of office hours ("Mo–Fr", "lun-ven", "lu a vi"), not read as days elsewhere. */
const SHORT_WEEKDAY = '(mo|di|mi|do|fr|sa|so|lun|mar|mer|jeu|ven|sam|dim|lu|ma|ju|vi)\\.?';
const SHORT_NUMBERS: Record<string, number> = { mo: 1, lun: 1, lu: 1, fr: 5, ven: 5, vi: 5, sa: 6, sam: 6 };
const CLOCK = '\\d{1,2}(?:[:.h]\\d{2})?\\s*(?:am|pm|uhr|h)?';

const weekdayNumber = (word: string): number | undefined => {
  const w = word.replace(/\.$/, '');
  return WEEKDAY_WORDS[w] ?? SHORT_NUMBERS[w];
};

const claim = (index: number, length: number): Mention => ({
  index,
  end: index + length,
  ms: Number.NaN,
  monthOnly: false,
  soft: false,
});

export function claimNotDates(scan: Scan): void {
  // Phone numbers: an international number, a number after "Tel"/"phone"/"Mobil", a US "(512) 555-0176",
  // a French "01 23 45 67 89" (five pairs).
  each(
    scan,
    `(?:(?:tel|tél|telefon|telephone|téléphone|teléfono|phone|mobil|mobile|móvil|movil|portable|fax|cell)\\.?\\s*:?\\s*|\\+)\\(?\\d[\\d\\s()./-]{5,}\\d`,
    (m) => claim(m.index, m[0].length),
  );
  each(scan, `\\(\\d{3}\\)\\s*\\d{3}[-.\\s]\\d{4}|(?<![\\d.])0\\d(?:[\\s.]\\d{2}){4}(?![\\d.])`, (m) =>
    claim(m.index, m[0].length),
  );
  // Office hours: the working week ("Monday–Friday", "Mo–Fr", "lun-ven", "de lunes a viernes"), or any
  // weekday span next to a clock time ("Mo–Do 8–16 Uhr").
  each(
    scan,
    `(?:${WEEKDAY}|${SHORT_WEEKDAY})\\s*(?:-|–|—|to|through|thru|bis|à|au|a)\\s*(?:${WEEKDAY}|${SHORT_WEEKDAY})(?:,?\\s*(?:from\\s+|von\\s+|de\\s+)?${CLOCK}\\s*(?:-|–|—|to|bis|à|a)\\s*${CLOCK})?`,
    (m) => {
      const first = weekdayNumber(m[1] ?? m[2]);
      const last = weekdayNumber(m[3] ?? m[4]);
      const hasClock = /\d/.test(m[0]);
      const workingWeek = first === 1 && (last === 5 || last === 6);
      // Any other span of weekdays may be an absence ("off Wednesday to Friday"): only with a clock time.
      if (!workingWeek && !hasClock) return null;
      return claim(m.index, m[0].length);
    },
  );
}
