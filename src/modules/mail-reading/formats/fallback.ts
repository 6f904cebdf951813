/**
 * The last resort for a report in a form no reader knows: every address the report's text names
 * (not its own sender's or ours), each with the line that names it and the lines after it.
 */
import type { FailedRecipient } from '../types.js';
import { ADDRESS, lines, recipientFrom, type FormatReader, type ReportView } from './format.js';
import { excludedAddresses } from './prose.js';

const ADDRESS_G = new RegExp(ADDRESS.source, 'g');
/** Addresses that run mail systems, never a recipient who failed. */
const ROLE = /^(?:mailer-daemon|postmaster|mail-daemon|mailer_daemon|no-?reply|abuse)@/i;

export function readAnyAddresses(text: string, excluded: ReadonlySet<string>): FailedRecipient[] {
  const said = new Map<string, string>();
  const all = lines(text);
  for (let i = 0; i < all.length && said.size < 50; i++) {
    for (const m of all[i].matchAll(ADDRESS_G)) {
      const address = m[0].toLowerCase();
      if (excluded.has(address) || ROLE.test(address) || said.has(address)) continue;
      const words = [all[i]];
      for (let j = i + 1; j < all.length && j <= i + 4 && all[j].trim(); j++) words.push(all[j]);
      said.set(address, words.join(' '));
    }
  }
  return [...said].map(([address, text]) => recipientFrom(address, text));
}

export const fallback: FormatReader = {
  name: 'any-address',
  read: (view: ReportView) => readAnyAddresses(view.text, excludedAddresses(view)),
};
