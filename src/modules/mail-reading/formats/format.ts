/**
 * What a format reader sees of a report, and the helpers the readers share. A reader is a small
 * pure function: it recognises its own format's wording and returns the failed recipients it states,
 * or an empty list when the report is not in its format. The registry (`index.ts`) tries them in order.
 */
import type { FailedRecipient, SmtpCommand } from '../types.js';

/** At most this many characters of any text are ever scanned (a 10 MB report reads in bounded time). */
export const SCAN_LIMIT = 512 * 1024;

export interface ReportView {
  /** The report's own subject, from, and top-level header lookup (lower-case names). */
  subject: string;
  from: string;
  header(name: string): string | null;
  /**
   * The human-readable report: the text body (or the HTML rendered as text) cut before the quoted
   * original, with any inline `message/delivery-status` fields mailparser renders into it.
   */
  text: string;
  /** Every `message/delivery-status` body, wherever it was found (attached, inline, as text). */
  deliveryStatus: string[];
  /** The raw mail as latin1, bounded to SCAN_LIMIT. */
  raw: string;
}

export interface FormatReader {
  /** Short name, shown in tests and docs. */
  name: string;
  read(view: ReportView): FailedRecipient[];
}

/** A bare address (no angle brackets), conservative enough to be linear. */
export const ADDRESS =
  /[A-Za-z0-9._%+'=&/!#$*?^`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}\.){1,8}[A-Za-z]{2,24}/;
const ADDRESS_G = new RegExp(ADDRESS.source, 'g');
const ENHANCED = /(?<![\w.-])([245])\.(\d{1,3})\.(\d{1,3})(?!\.?\d)/;
const REPLY_THEN_ENHANCED = /(?<![\w.#:/-])[245]\d\d[ -]['"]?([245])\.(\d{1,3})\.(\d{1,3})(?!\.?\d)/;
/** `ERROR_CODE :421` (Zoho), `code: 550`: a reply code the text names as such. */
const CODE_NAMED = /\bcode[ \t]*:[ \t]*([245][0-5]\d)\b/i;
const SMTP_CODE = /(?<![\w.#:/-])([245][0-5]\d)(?=[\s:-]|$)/;

export function firstAddress(s: string): string | null {
  const m = ADDRESS.exec(s);
  return m ? cleanAddress(m[0]) : null;
}

export function allAddresses(s: string): string[] {
  return [...s.slice(0, SCAN_LIMIT).matchAll(ADDRESS_G)].map((m) => cleanAddress(m[0]));
}

export function cleanAddress(a: string): string {
  return a.replace(/^[.'=]+|[.']+$/g, '').toLowerCase();
}

/** Whitespace-collapsed, at most 1,000 characters; null when empty. */
export function collapse(s: string | null | undefined): string | null {
  if (!s) return null;
  const t = s.slice(0, 4000).replace(/\s+/g, ' ').trim();
  return t ? t.slice(0, 1000) : null;
}

/** The enhanced status code (`5.1.1`) in a text, or null. `x.0.0` codes are kept (they say little). */
export function enhancedStatus(s: string | null): string | null {
  if (!s) return null;
  const t = s.slice(0, 4000);
  // The code the remote server gave right after its reply code (`550-'5.7.1`, `550 5.1.1`) is its
  // own; a relay's summary before it (SES's `5.1.0 - Unknown address error 550-'5.7.1 ...'`) is not.
  const m = REPLY_THEN_ENHANCED.exec(t) ?? ENHANCED.exec(t);
  return m ? `${m[1]}.${m[2]}.${m[3]}` : null;
}

/** The SMTP reply code (`550`) in a text, or null. */
export function smtpCode(s: string | null): number | null {
  if (!s) return null;
  const t = s.slice(0, 4000);
  const m = SMTP_CODE.exec(t) ?? CODE_NAMED.exec(t);
  return m ? Number(m[1]) : null;
}

const COMMAND_SAID =
  /(?:in reply to (?:end of )?|after (?:end of )?|>>> ?|\[|smtp:|most progress was |command:? ?)(data|rcpt(?:[ _]to)?|mail(?:[ _]from)?|helo|ehlo|initial connection|connect|body|end of data)\b/i;

/** The SMTP command a diagnostic says the server answered, when it says. */
export function smtpCommand(s: string | null): SmtpCommand | undefined {
  const m = s ? COMMAND_SAID.exec(s.slice(0, 4000)) : null;
  if (!m) return undefined;
  const c = m[1].toLowerCase();
  if (c.startsWith('rcpt')) return 'RCPT';
  if (c.startsWith('mail')) return 'MAIL';
  if (c === 'data' || c === 'body' || c === 'end of data') return 'DATA';
  if (c === 'helo' || c === 'ehlo') return 'HELO';
  return 'CONN';
}

/** A recipient from an address and the text that speaks about it. */
export function recipientFrom(
  address: string | null,
  diagnostic: string | null,
  extra: Partial<FailedRecipient> = {},
): FailedRecipient {
  const d = collapse(diagnostic);
  return {
    address: address ? cleanAddress(address) : null,
    status: extra.status ?? enhancedStatus(d),
    smtpCode: extra.smtpCode ?? smtpCode(d),
    diagnostic: d,
    action: extra.action ?? null,
    ...(extra.hint ? { hint: extra.hint } : {}),
    ...withCommand(extra.command ?? smtpCommand(d)),
  };
}

/** Splits text into lines (bounded). */
export function lines(s: string): string[] {
  return s.slice(0, SCAN_LIMIT).split(/\r?\n/);
}

/** `{ command }` when known, else nothing (the field is optional). */
export function withCommand(command: SmtpCommand | undefined): { command?: SmtpCommand } {
  return command ? { command } : {};
}
