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
  /** Refused for good (5xx to RCPT TO or to the end of DATA): a hard bounce. */
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
