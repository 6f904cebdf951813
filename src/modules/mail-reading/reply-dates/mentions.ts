/** Every day a reply's own words mention, in text order, with written ranges marked. */
import { chronoMentions } from './chrono-mentions.js';
import { scanText } from './date-scanner.js';
import { detectLang } from './language.js';
import { replyText as ownWords } from '../reply-text.js';
import type { Mention, Scan } from './scan.js';

/** What stands between the two days of a range. */
const RANGE_GAP = new RegExp(
  `^\\.?\\s*(?:-|–|—|to|till|until|through|thru|bis(?:\\s+(?:zum|einschließlich))?|au|jusqu['’]au|al|hasta(?:\\s+el)?)\\s*(?:(?:the|le|el|den|zum)\\s+)?$`,
  'i',
);

export function mentionsOf(text: string, replyDate: Date): { scan: Scan; mentions: Mention[] } {
  const cleaned = ownWords(text);
  const scan = scanText(cleaned, replyDate, detectLang(cleaned.toLowerCase()));
  const all = [...scan.mentions, ...chronoMentions(scan, replyDate)].sort((a, b) => a.index - b.index);
  // Two days joined by a dash or a range word are a range: "23 Nov – 4 Dec", "vom 24.12. bis 03.01.".
  for (let i = 1; i < all.length; i += 1) {
    const gap = scan.lower.slice(all[i - 1].end, all[i].index);
    if (RANGE_GAP.test(gap) && !all[i - 1].monthOnly && !all[i].monthOnly) {
      all[i - 1].rangeStart ??= true;
      all[i].rangeEnd ??= true;
    }
  }
  const mentions = all.filter((m) => Number.isFinite(m.ms));
  return { scan, mentions };
}
