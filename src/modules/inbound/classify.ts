/**
 * Classifies an incoming mail (already parsed by mailparser): an RFC 5965 feedback report (a spam
 * complaint), an RFC 3464 delivery-status report (hard, soft or policy bounce), an auto-reply
 * (RFC 3834 `Auto-Submitted`, vendor headers, out-of-office subjects) or a person's reply. Pure: no
 * database, easy to test.
 */
import type { ParsedMail } from 'mailparser';

export type BounceType = 'hard' | 'soft' | 'policy';

export interface BounceReport {
  bounceType: BounceType;
  /** Enhanced status code, e.g. `5.1.1`. */
  statusCode: string;
  diagnostic: string | null;
  recipient: string | null;
}

/** An RFC 5965 (ARF) feedback report: a recipient marked our message as spam. */
export interface ComplaintReport {
  /** `Feedback-Type` (RFC 5965 §7.3: abuse, fraud, virus, other, not-spam, …), lower-cased; `abuse` when absent. */
  feedbackType: string;
  /** `Original-Rcpt-To` when the reporter kept it (many redact it). */
  recipient: string | null;
}

export type Classification =
  | { kind: 'reply' }
  | { kind: 'auto_reply' }
  | ({ kind: 'bounce' } & BounceReport)
  | ({ kind: 'complaint' } & ComplaintReport);

const OUT_OF_OFFICE =
  /\b(out of (the )?office|automatic reply|auto[- ]?reply|autoreply|auto[- ]?response|on vacation|away from (the )?office|abwesenheit|absence|r[ée]ponse automatique)\b/i;

function header(mail: ParsedMail, name: string): string | null {
  const v: unknown = mail.headers.get(name);
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'object' && 'value' in v) return String((v as { value: unknown }).value);
  return typeof v === 'number' || typeof v === 'boolean' ? String(v) : null;
}

/** The `report-type` of a top-level `multipart/report`, lower-cased; null for anything else. */
function reportType(mail: ParsedMail): string | null {
  const ct = mail.headers.get('content-type') as
    { value?: string; params?: Record<string, string> } | undefined;
  if (!ct || typeof ct !== 'object' || String(ct.value).toLowerCase() !== 'multipart/report') return null;
  return String(ct.params?.['report-type'] ?? '').toLowerCase();
}

/** The machine-readable part of an ARF report (`message/feedback-report`, RFC 5965 §3.1). */
export function parseFeedbackReport(text: string): ComplaintReport | null {
  const unfolded = text.replace(/\r?\n[ \t]+/g, ' ');
  const type = /^Feedback-Type:\s*([A-Za-z0-9-]{1,40})/im.exec(unfolded)?.[1]?.toLowerCase();
  if (!type) return null;
  const recipient =
    /^Original-Rcpt-To:\s*<?([^\s<>]+@[^\s<>]+)>?/im.exec(unfolded)?.[1]?.toLowerCase() ?? null;
  return { feedbackType: type, recipient };
}

function complaintOf(mail: ParsedMail, raw: Buffer): ComplaintReport {
  const sources = [
    ...mail.attachments
      .filter((a) => /feedback-report/i.test(a.contentType))
      .map((a) => a.content.toString('utf8')),
    raw.toString('latin1'),
  ];
  for (const s of sources) {
    const report = parseFeedbackReport(s);
    if (report) return report;
  }
  // A feedback report without a readable Feedback-Type is still a complaint (the RFC's default kind).
  return { feedbackType: 'abuse', recipient: null };
}

/** The first per-recipient block with a `Status:` field, from the delivery-status text. */
export function parseDeliveryStatus(text: string): BounceReport | null {
  // Unfold continuation lines (RFC 5322 folding) so Diagnostic-Code reads as one line.
  const unfolded = text.replace(/\r?\n[ \t]+/g, ' ');
  const status = /^Status:\s*([245])\.(\d{1,3})\.(\d{1,3})/im.exec(unfolded);
  if (!status) return null;
  const statusCode = `${status[1]}.${status[2]}.${status[3]}`;
  const diagnostic = /^Diagnostic-Code:\s*(?:[^;\r\n]*;)?\s*(.+)$/im.exec(unfolded)?.[1]?.trim() ?? null;
  const recipient =
    /^(?:Final|Original)-Recipient:\s*(?:[^;\r\n]*;)?\s*<?([^\s<>]+@[^\s<>]+)>?/im
      .exec(unfolded)?.[1]
      ?.toLowerCase() ?? null;
  const bounceType: BounceType =
    status[1] === '5' ? (status[2] === '7' ? 'policy' : 'hard') : status[1] === '4' ? 'soft' : 'soft';
  if (status[1] === '2') return null; // a "delivered" report is not a bounce
  return { bounceType, statusCode, diagnostic: diagnostic ? diagnostic.slice(0, 1000) : null, recipient };
}

export function isAutoReply(mail: ParsedMail): boolean {
  const auto = header(mail, 'auto-submitted');
  if (auto && auto.trim().toLowerCase() !== 'no') return true;
  if (header(mail, 'x-autoreply') || header(mail, 'x-autorespond') || header(mail, 'x-autoresponder'))
    return true;
  const precedence = header(mail, 'precedence')?.toLowerCase();
  if (precedence === 'auto_reply') return true;
  return OUT_OF_OFFICE.test(mail.subject ?? '');
}

export function classify(mail: ParsedMail, raw: Buffer): Classification {
  const report = reportType(mail);
  if (report === 'feedback-report') return { kind: 'complaint', ...complaintOf(mail, raw) };
  if (report === 'delivery-status') {
    const sources = [
      ...mail.attachments
        .filter((a) => /delivery-status/i.test(a.contentType))
        .map((a) => a.content.toString('utf8')),
      mail.text ?? '',
      raw.toString('latin1'),
    ];
    for (const s of sources) {
      const report = parseDeliveryStatus(s);
      if (report) return { kind: 'bounce', ...report };
    }
  }
  if (isAutoReply(mail)) return { kind: 'auto_reply' };
  return { kind: 'reply' };
}

const MESSAGE_ID_HEADER = /^Message-ID:\s*(<[^>\s]+>)/gim;

/**
 * Message-IDs that may identify the mail this one answers: In-Reply-To and References, and for a
 * report (a delivery-status bounce or a feedback report) the Message-ID of the returned original
 * (in a message/rfc822 or text/rfc822-headers part, or inline in the body: mailparser renders an
 * inline message/rfc822 part into the text without its Message-ID, so the raw body is read too).
 */
export function referencedMessageIds(mail: ParsedMail, raw: Buffer, report: boolean): string[] {
  const ids: string[] = [];
  const add = (v: string | string[] | undefined): void => {
    for (const s of Array.isArray(v) ? v : v ? [v] : []) {
      for (const id of s.match(/<[^>\s]+>/g) ?? []) ids.push(id);
    }
  };
  add(mail.inReplyTo);
  add(mail.references);
  if (report) {
    for (const a of mail.attachments) {
      if (/rfc822/i.test(a.contentType)) {
        for (const m of a.content.toString('utf8').matchAll(MESSAGE_ID_HEADER)) ids.push(m[1]);
      }
    }
    const text = raw.toString('latin1');
    const bodyStart = text.search(/\r?\n\r?\n/);
    if (bodyStart >= 0) for (const m of text.slice(bodyStart).matchAll(MESSAGE_ID_HEADER)) ids.push(m[1]);
  }
  // Newest reference last in References; try the direct parent first.
  return [...new Set(ids)].slice(0, 100);
}
