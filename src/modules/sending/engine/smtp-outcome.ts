/**
 * What a failed SMTP send means for at-most-once delivery. Pure: no I/O.
 *
 * nodemailer reports every connection-level failure (reset, close, timeout, our own deadline) the
 * same way whatever the stage (`code` ECONNECTION/ETIMEDOUT/ESOCKET, `command` 'CONN'), so the stage
 * comes from the caller: `handedOver` is true once the server had answered the DATA command with 354
 * and the message started to flow (smtp-transport.pool.ts watches the message stream). Explicit
 * replies carry `responseCode`; nodemailer tags a reply to the end of DATA with code EMESSAGE, and a
 * refused DATA command with code EENVELOPE and command 'DATA'.
 */
import { MAX_DIAGNOSTIC_CHARS, toBounceView, type BounceView } from '../../mail-reading/bounce.view.js';
import { decideReason } from '../../mail-reading/reason.js';

/** The fields of a nodemailer error this looks at. */
export interface SmtpError {
  code?: string;
  command?: string;
  responseCode?: number;
  response?: string;
  message?: string;
  name?: string;
}

export type SmtpFailure =
  /** The server cannot have accepted the message: drop the record, retry later. */
  | { kind: 'not_sent'; reason: string; inboxError: boolean }
  /** Refused for good (5xx to RCPT TO or to the end of DATA): a bounce (its reason: refusalVerdict). */
  | { kind: 'bounced'; responseCode: number; reason: string }
  /** The message was handed over and the final reply never came: never resend, ask for review. */
  | { kind: 'unknown'; reason: string };

/** A short, single-line account of the error (code and the server's reply or the message). */
export function smtpReason(err: SmtpError): string {
  const text = (err.response ?? err.message ?? '').replace(/\s+/g, ' ').trim().slice(0, 300);
  return `${err.code ?? err.name ?? 'error'}: ${text}`;
}

export function classifySmtpFailure(err: SmtpError, handedOver: boolean): SmtpFailure {
  const code = typeof err.responseCode === 'number' ? err.responseCode : null;
  const reason = smtpReason(err);
  const endOfData = err.code === 'EMESSAGE' || (handedOver && code !== null);
  if (endOfData && code !== null) {
    // An explicit reply to the end of DATA: 5xx refused for good, 4xx not accepted (try later).
    if (code >= 500) return { kind: 'bounced', responseCode: code, reason };
    return { kind: 'not_sent', reason, inboxError: false };
  }
  if (handedOver) return { kind: 'unknown', reason };
  // Before the message was handed over: nothing the server could have accepted.
  if (code !== null && code >= 500 && /^RCPT/i.test(err.command ?? '')) {
    return { kind: 'bounced', responseCode: code, reason };
  }
  return { kind: 'not_sent', reason, inboxError: err.code === 'EAUTH' || (code !== null && code >= 500) };
}

/**
 * The bounce verdict of a send the server refused for good (CONTRACT §18): the reason is read from
 * the reply's enhanced status, code and text like a delivery-failure report's, so "550 5.7.1 blocked
 * by policy" is a sender-side soft bounce and only an address-level refusal is hard.
 */
export function refusalVerdict(err: SmtpError, responseCode: number): BounceView {
  const text = (err.response ?? err.message ?? '').replace(/\s+/g, ' ').trim().slice(0, MAX_DIAGNOSTIC_CHARS);
  const status = /\b([245]\.\d{1,3}\.\d{1,3})\b/.exec(text)?.[1] ?? null;
  const input = { status, smtpCode: responseCode, diagnostic: text || null, action: 'failed' };
  const { reason, hard } = decideReason(input);
  return toBounceView({ ...input, reason, hard });
}
