/**
 * RFC 3464 `message/delivery-status` fields: one block per recipient (`Final-Recipient`, `Action`,
 * `Status`, `Diagnostic-Code`), wherever the report put them (a `multipart/report` part, a part
 * attached as text, or the fields inline in a plain-text report).
 */
import type { FailedRecipient } from '../types.js';
import {
  cleanAddress,
  collapse,
  enhancedStatus,
  firstAddress,
  lines,
  smtpCode,
  smtpCommand,
  withCommand,
  type FormatReader,
  type ReportView,
} from './format.js';

type Fields = Map<string, string>;

const FIELD = /^([A-Za-z][A-Za-z0-9-]{0,40})[ \t]*:[ \t]*(.*)$/;
const HAS_FIELDS = /^(?:final|original)-recipient[ \t]*:/im;
const RECIPIENT_FIELD = /^(?:final|original)-recipient$/;

/** Per-recipient field blocks of a delivery-status text (unfolded, names lower-cased). */
export function recipientBlocks(text: string): Fields[] {
  const blocks: Fields[] = [];
  let current: Fields | null = null;
  let last: string | null = null;
  for (const line of lines(text)) {
    if (!line.trim()) {
      // A blank line ends the block (RFC 3464 §2.1: one paragraph per recipient).
      current = null;
      last = null;
      continue;
    }
    if (/^[ \t]+\S/.test(line) && current && last) {
      current.set(last, `${current.get(last)} ${line.trim()}`);
      continue;
    }
    const m = FIELD.exec(line);
    if (!m) {
      last = null;
      continue;
    }
    const name = m[1].toLowerCase();
    // A repeated field in one paragraph starts the next recipient (some MTAs omit the blank line).
    if (!current || (current.has(name) && RECIPIENT_FIELD.test(name))) {
      current = new Map();
      blocks.push(current);
    }
    if (!current.has(name)) current.set(name, m[2].trim());
    last = name;
  }
  return blocks.filter((b) => b.has('final-recipient') || b.has('original-recipient'));
}

/** `rfc822; <Bob@Example.com>` → `bob@example.com`. */
function addressField(v: string | undefined): string | null {
  if (!v) return null;
  const a = firstAddress(v.replace(/^[^;]*;/, ''));
  return a ? cleanAddress(a) : null;
}

export function fromBlock(b: Fields): FailedRecipient | null {
  const address = addressField(b.get('final-recipient')) ?? addressField(b.get('original-recipient'));
  const code = b.get('diagnostic-code') ?? '';
  // Without a Diagnostic-Code, the Status field's comment is the only words (`4.0.0 (host name lookup failure)`).
  const comment = /\(([^)]{3,300})\)/.exec(b.get('status') ?? '')?.[1] ?? '';
  const diagnostic = collapse(code.replace(/^\s*[A-Za-z0-9-]{1,20}\s*;/, '') || comment);
  const stated = enhancedStatus(b.get('status') ?? null);
  const said = enhancedStatus(diagnostic);
  // A bare `x.0.0` Status says less than the remote server's own code of the same class.
  const status = stated && said && /\.0\.0$/.test(stated) && said[0] === stated[0] ? said : (stated ?? said);
  const action =
    b
      .get('action')
      ?.trim()
      .toLowerCase()
      .split(/[\s(;]/)[0] || null;
  if (!address && !status && !diagnostic) return null;
  return {
    address,
    status,
    smtpCode: smtpCode(diagnostic),
    diagnostic,
    action,
    ...withCommand(smtpCommand(diagnostic)),
  };
}

export function readDeliveryStatus(texts: string[]): FailedRecipient[] {
  for (const t of texts) {
    // A cheap test first: most texts of a non-standard report have no fields at all.
    if (!HAS_FIELDS.test(t)) continue;
    const found = recipientBlocks(t)
      .map(fromBlock)
      .filter((r): r is FailedRecipient => r !== null);
    if (found.length) return found;
  }
  return [];
}

export const rfc3464: FormatReader = {
  name: 'rfc3464',
  read: (view: ReportView) => readDeliveryStatus(view.deliveryStatus),
};
