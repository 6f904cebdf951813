/**
 * The plain-text forms most MTAs write: a line naming the failed address, then the remote server's
 * words on the same line or the lines below it, up to a blank line. This one shape covers qmail
 * (`<addr>:` then `... said: 550 ...`), Exim (`The following address(es) failed:` then the indented
 * address and `SMTP error from remote mail server ...`), Postfix without its DSN part (`<addr>: host
 * ... said: ...`), Yahoo (`Remote host said:`), GMX, Courier, Exchange 2003 (`addr on <date>`),
 * Office 365 / Exchange 2007+ (`addr` then `Remote Server returned '550 5.1.1 ...'`), Domino and the like.
 */
import type { FailedRecipient } from '../types.js';
import { ADDRESS, lines, recipientFrom, type FormatReader, type ReportView } from './format.js';

/** A line that starts with an address: `  <bob@example.com>: ...`, `bob@example.com on <date>`. */
const ADDRESS_LINE = new RegExp(
  `^[ \\t]*(?:[*\u2022-][ \\t]+)?(?:(?:RCPT TO|Recipient address|Failed recipient|Original-Recipient|Recipient)[ \\t]*:?[ \\t]*)?["'(]?<?(${ADDRESS.source})>?["')]?(.*)$`,
  'i',
);
/** Header-like lines (`To: bob@...`) quote the original; they never name a failed address. */
const HEADER_LINE = /^[ \t]*(?:to|from|cc|bcc|reply-to|sender|return-path|subject|date|sent)[ \t]*:/i;

/** RFC 3464 fields that follow a human-readable part are not its words. */
const DSN_FIELD =
  /^(?:reporting-mta|received-from-mta|arrival-date|final-recipient|original-recipient|action|status|remote-mta|diagnostic-code|last-attempt-date|x-[a-z-]+)[ \t]*:/i;

const indent = (s: string): number => s.length - s.trimStart().length;

/** The words right after the address on its own line, without the `<mailto:...>`/`on <date>` tails. */
function tail(rest: string): string {
  return rest
    .replace(/^<mailto:[^>]*>/i, '')
    .replace(/^\s*on\s+\w{3},.*$/i, '')
    .replace(/^\s*\(expanded from[^)]*\)/i, '')
    .replace(/^[\s:.>-]+/, '');
}

function nextParagraph(all: string[], from: number): string[] {
  const out: string[] = [];
  let i = from;
  // Up to two paragraphs when the first is a mere lead-in (Domino's `because:`).
  for (let paragraph = 0; paragraph < 2 && out.join(' ').length < 20; paragraph++) {
    while (i < all.length && !all[i].trim()) i++;
    for (; i < all.length && out.length < 6 && all[i].trim(); i++) {
      if (ADDRESS_LINE.test(all[i]) && !HEADER_LINE.test(all[i])) return out;
      if (DSN_FIELD.test(all[i])) return out;
      if (/^[\s=*_-]+$/.test(all[i])) continue;
      out.push(all[i].trim());
    }
  }
  return out;
}

export function readAddressParagraphs(text: string, excluded: ReadonlySet<string>): FailedRecipient[] {
  const said = new Map<string, string[]>();
  const all = lines(text);
  for (let i = 0; i < all.length; i++) {
    const line = all[i];
    if (HEADER_LINE.test(line)) continue;
    const m = ADDRESS_LINE.exec(line);
    if (!m) continue;
    const address = m[1].toLowerCase();
    if (excluded.has(address)) continue;
    const words = [tail(m[2])];
    for (let j = i + 1; j < all.length && j <= i + 12; j++) {
      const next = all[j];
      if (!next.trim()) break;
      if (indent(next) <= indent(line) && ADDRESS_LINE.test(next) && !HEADER_LINE.test(next)) break;
      words.push(next.trim());
    }
    // The address alone on its paragraph (Gmail, Domino, EZweb): the words are the next paragraph.
    if (words.length === 1 && !words[0]) words.push(...nextParagraph(all, i + 1));
    const text = words.filter(Boolean).join(' ');
    said.set(address, [...(said.get(address) ?? []), text]);
  }
  return [...said].map(([address, pieces]) => {
    // The piece with an SMTP reply or status code first: it is the remote server's own words.
    const coded = pieces.filter((p) => /\b[245]\d\d\b|\b[245]\.\d{1,3}\.\d{1,3}\b/.test(p));
    const rest = pieces.filter((p) => !coded.includes(p));
    return recipientFrom(address, [...coded, ...rest].join(' '));
  });
}

export const prose: FormatReader = {
  name: 'address-paragraphs',
  read: (view: ReportView) => readAddressParagraphs(view.text, excludedAddresses(view)),
};

/** The report's own addresses (its sender and our address it came to) are never the failed ones. */
export function excludedAddresses(view: ReportView): Set<string> {
  const out = new Set<string>();
  for (const h of ['from', 'to', 'return-path', 'reply-to', 'sender']) {
    const v = view.header(h);
    if (!v) continue;
    for (const m of v.matchAll(new RegExp(ADDRESS.source, 'g'))) out.add(m[0].toLowerCase());
  }
  return out;
}
