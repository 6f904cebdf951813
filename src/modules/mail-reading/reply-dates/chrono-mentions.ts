/** chrono-node's parser of the reply's language, for what the scanner does not know. */
import * as chrono from 'chrono-node';
import { utc } from './calendar.js';
import { overlaps, type Mention, type Scan } from './scan.js';
import { MONTH_WORDS, NUMBER_WORDS, WB, WE, WEEKDAY_WORDS, alt } from './words.js';

/** The first half of a span of durations: "2-", "zwei oder ", "deux à ", "2 o ". */
const DURATION_SPAN = new RegExp(
  `${WB}(\\d{1,3}|${alt(Object.keys(NUMBER_WORDS))})\\s*(?:-|–|to|or|oder|bis|ou|à|o|a)\\s*$`,
  'i',
);

const NAMED_DAY = new RegExp(
  `${WB}(${alt(Object.keys(MONTH_WORDS))}|${alt(Object.keys(WEEKDAY_WORDS))})${WE}`,
  'i',
);
const SHORT_WEEKDAY_ALONE = new RegExp(
  `^(?:(?:on|next|this|last)\\s+)?(${alt(Object.keys(WEEKDAY_WORDS).filter((w) => w.length <= 4))})\\.?$`,
  'i',
);

/** chrono-node's reading, kept only where it names a day (a number, a month or a weekday) the scanner missed. */
export function chronoMentions(scan: Scan, replyDate: Date): Mention[] {
  const parser =
    scan.lang === 'de'
      ? chrono.de.casual
      : scan.lang === 'fr'
        ? chrono.fr.casual
        : scan.lang === 'es'
          ? chrono.es.casual
          : scan.us
            ? chrono.en.casual
            : chrono.en.GB;
  const out: Mention[] = [];
  for (const r of parser.parse(scan.text, { instant: replyDate, timezone: 0 }, { forwardDate: true })) {
    if (overlaps(scan, r.index, r.index + r.text.length)) continue;
    // "2-3 weeks", "zwei oder drei Wochen": a span of durations names no day.
    const before = scan.lower.slice(Math.max(0, r.index - 20), r.index);
    if (DURATION_SPAN.test(before) && !/\d{1,2}[./]\d/.test(r.text)) {
      continue;
    }
    if (!r.start.isCertain('day') && !r.start.isCertain('weekday') && !r.start.isCertain('month')) continue;
    // A day needs a number, or a month or weekday as a whole word ("mai" is not in "maintenant"), and
    // an abbreviated weekday alone is no day ("Mon frère", "Sat down"), as in the scanner.
    if (!/\d/.test(r.text) && (!NAMED_DAY.test(r.text) || SHORT_WEEKDAY_ALONE.test(r.text))) continue;
    const d = r.start.date();
    out.push({
      index: r.index,
      end: r.index + r.text.length,
      ms: utc(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()),
      monthOnly: false,
      soft: !r.start.isCertain('day'),
    });
  }
  return out;
}
