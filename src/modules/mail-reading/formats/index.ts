/**
 * The registry of format readers. Structured readers (fields a machine wrote) come first; then the
 * text readers, first one that finds recipients wins; then the last resort. A new mail system's format
 * is one small file and one entry in `TEXT_READERS` (or `STRUCTURED_READERS`).
 */
import type { FailedRecipient, SmtpCommand } from '../types.js';
import { amazonSes } from './amazon-ses.js';
import { fallback } from './fallback.js';
import { familyHint } from './family-hints.js';
import { googleGroups } from './google-groups.js';
import {
  enhancedStatus,
  firstAddress,
  lines,
  recipientFrom,
  SCAN_LIMIT,
  smtpCode,
  smtpCommand,
  withCommand,
  type FormatReader,
  type ReportView,
} from './format.js';
import { prose } from './prose.js';
import { rfc3464 } from './rfc3464.js';
import { transcript } from './transcript.js';

export const STRUCTURED_READERS: readonly FormatReader[] = [amazonSes, googleGroups, rfc3464];
export const TEXT_READERS: readonly FormatReader[] = [transcript, prose];
export const LAST_RESORT: FormatReader = fallback;

/**
 * Where a report puts the remote server's words once for all its recipients (Gmail's "The error that
 * the other server returned was:", Exchange's "Remote Server returned '...'", "Remote host said:").
 */
const GLOBAL_MARKERS: readonly RegExp[] = [
  /(?:error that the other server returned was|response from the remote server was|^the response was|remote server responded with|remote server returned|remote host said|the server responded with|server replied|mail server said)\s*:?\s*(.*)$/i,
  /\bsaid:\s*(.*)$/i,
  /^\s*(?:<<<\s*)?([245]\d\d[ -](?:[245]\.\d{1,3}\.\d{1,3})?.*)$/,
  /((?<![\w.])[245]\d\d[ -][245]\.\d{1,3}\.\d{1,3}\b.*)$/,
];

export function globalDiagnostic(text: string): string | null {
  const all = lines(text);
  for (const marker of GLOBAL_MARKERS) {
    for (let i = 0; i < all.length; i++) {
      const m = marker.exec(all[i]);
      if (!m) continue;
      const words = [m[1]];
      for (let j = i + 1; j < all.length && j <= i + 4 && all[j].trim(); j++) words.push(all[j].trim());
      const found = words.join(' ').trim();
      if (found) return found;
    }
  }
  return null;
}

const REPORT_COMMAND =
  /(?:smtp command[ \t:-]*\r?\n?[ \t]*|^>>>[ \t]*|in reply to (?:end of )?|after (?:end of )?)(data|rcpt to|mail from)\b/im;

export function reportCommand(text: string): SmtpCommand | undefined {
  const m = REPORT_COMMAND.exec(text.slice(0, SCAN_LIMIT));
  return m ? smtpCommand(`>>> ${m[1]}`) : undefined;
}

/** A reason the report's own family states in its documented words (`family-hints.ts`). */
const withFamilyHint =
  (view: ReportView) =>
  (r: FailedRecipient): FailedRecipient => {
    const hint = familyHint(view, r);
    return hint ? { ...r, hint } : r;
  };

const hasCode = (r: FailedRecipient): boolean => r.status !== null || r.smtpCode !== null;

function firstFound(readers: readonly FormatReader[], view: ReportView): FailedRecipient[] {
  for (const reader of readers) {
    const found = reader.read(view);
    if (found.length) return found;
  }
  return [];
}

/** Structured fields with the text's words where the fields say less. */
function merge(structured: FailedRecipient[], text: FailedRecipient[]): FailedRecipient[] {
  return structured.map((r) => {
    const t =
      text.find((x) => x.address !== null && x.address === r.address) ??
      (structured.length === 1 && text.length === 1 ? text[0] : undefined);
    if (!t) return r;
    const said = (x: string | null): string => (x ?? '').toLowerCase();
    // The text's words when the fields have none, say no code, or say less than the text (Postfix's
    // text adds `(in reply to end of DATA command)` to the same words).
    const useText =
      !r.diagnostic ||
      (!smtpCode(r.diagnostic) && !enhancedStatus(r.diagnostic) && hasCode(t)) ||
      (said(t.diagnostic).includes(said(r.diagnostic)) &&
        said(t.diagnostic).length > said(r.diagnostic).length);
    return {
      ...r,
      diagnostic: useText ? t.diagnostic : r.diagnostic,
      smtpCode: r.smtpCode ?? t.smtpCode,
      status: r.status ?? t.status,
      address: r.address ?? t.address,
      ...withCommand(r.command ?? t.command),
    };
  });
}

/** X-Failed-Recipients (Exim and others): when present, the failed addresses are these. */
function headerFailed(view: ReportView): string[] {
  const v = view.header('x-failed-recipients') ?? '';
  return [...new Set(v.split(/[,\s]+/).map(firstAddress))].filter((a): a is string => a !== null);
}

/**
 * Every failed recipient the report states (possibly delivered/delayed ones: see `action`). A report
 * whose recipients no reader finds still yields one recipient: the header's or the quoted original's
 * address (or null), with the report's own words as the diagnostic.
 */
export function readFailedRecipients(view: ReportView, originalTo: string | null): FailedRecipient[] {
  const structured = firstFound(STRUCTURED_READERS, view);
  let text = firstFound(TEXT_READERS, view);
  if (!text.length && !structured.length) text = LAST_RESORT.read(view);
  let found = structured.length ? merge(structured, text) : text;
  const failed = headerFailed(view);
  if (failed.length && !structured.length) {
    found = failed.map(
      (a) =>
        found.find((r) => r.address === a) ??
        (found.length === 1 && !found[0].address ? { ...found[0], address: a } : recipientFrom(a, null)),
    );
  }
  const global = globalDiagnostic(view.text);
  if (!found.length) found = [recipientFrom(originalTo, null)];
  // A report about one recipient may state the command once, apart from the words (m-FILTER's
  // `-------SMTP command` paragraph, a transcript above the fields).
  const command = found.length === 1 && !found[0].command ? reportCommand(view.text) : undefined;
  if (command) found = [{ ...found[0], command }];
  // Without a code of its own, a recipient takes the report's one statement of the server's words;
  // without any words and any code, the report's own text.
  return found.map(withFamilyHint(view)).map((r) => {
    if (hasCode(r) && r.diagnostic) return r;
    const words = [r.diagnostic, global].filter(Boolean).join(' ') || (hasCode(r) ? '' : view.text);
    return recipientFrom(r.address, words, {
      action: r.action,
      ...(r.status ? { status: r.status } : {}),
      ...(r.smtpCode ? { smtpCode: r.smtpCode } : {}),
      ...(r.hint ? { hint: r.hint } : {}),
      ...withCommand(r.command),
    });
  });
}
