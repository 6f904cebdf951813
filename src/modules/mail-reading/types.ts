/**
 * What reading one incoming mail yields (CONTRACT §18). The reader is pure: no database, no network.
 *
 * Layers (each its own file, so a new mail system's format is one small addition):
 * 1. `read-mail.ts` — finds the report and the quoted original wherever a mail system puts them, and
 *    decides the mail's kind (bounce, complaint, auto-reply, delivered, reply);
 * 2. `formats/*.ts` — per-format readers that pull the failed recipients with their enhanced status,
 *    SMTP reply code and diagnostic text out of RFC 3464 fields or an MTA's own prose;
 * 3. `reason.ts` — decides the reason from (status, SMTP code, diagnostic), the same text meaning
 *    the same reason whoever wrote it.
 */

/** The closed set of bounce reasons (sisimai's taxonomy in snake_case, CONTRACT §18). */
export const BOUNCE_REASONS = [
  'user_unknown',
  'host_unknown',
  'has_moved',
  'not_accept',
  'mailbox_full',
  'suspended',
  'exceed_limit',
  'message_too_big',
  'expired',
  'system_error',
  'system_full',
  'network_error',
  'too_many_connections',
  'blocked',
  'spam_detected',
  'policy_violation',
  'security_error',
  'auth_failure',
  'bad_reputation',
  'require_ptr',
  'rejected',
  'filtered',
  'content_error',
  'virus_detected',
  'syntax_error',
  'not_compliant_rfc',
  'speeding',
  'no_relaying',
  'mailer_error',
  'on_hold',
  'undefined',
] as const;
export type BounceReason = (typeof BOUNCE_REASONS)[number];

/** The address or its domain cannot receive mail: suppress at once (CONTRACT §18). */
export const HARD_REASONS: ReadonlySet<BounceReason> = new Set([
  'user_unknown',
  'host_unknown',
  'has_moved',
  'not_accept',
]);

/** Recipient-side soft reasons: three of one contact within 30 days suppress it. */
export const RECIPIENT_SOFT_REASONS: ReadonlySet<BounceReason> = new Set([
  'mailbox_full',
  'suspended',
  'exceed_limit',
  'system_full',
  'expired',
]);

/** The receiving side refused the sender, not the address: recorded on the inbox, never the contact. */
export const SENDER_SIDE_REASONS: ReadonlySet<BounceReason> = new Set([
  'blocked',
  'spam_detected',
  'policy_violation',
  'security_error',
  'auth_failure',
  'bad_reputation',
  'require_ptr',
  'rejected',
  'filtered',
  'content_error',
  'no_relaying',
  'speeding',
]);

/** One failed recipient as a report states it, before the reason is decided. */
export interface FailedRecipient {
  /** The failed address, lower-cased (`Final-Recipient`, `X-Failed-Recipients`, or from the text). */
  address: string | null;
  /** Enhanced status code (`5.1.1`), or null when the report gives none. */
  status: string | null;
  /** SMTP reply code (`550`), or null. */
  smtpCode: number | null;
  /** The diagnostic text (the remote server's words), whitespace-collapsed, at most 1,000 chars. */
  diagnostic: string | null;
  /** RFC 3464 `Action` (`failed`, `delayed`, `delivered`, ...), lower-cased, when given. */
  action: string | null;
  /**
   * A reason the format states outright (e.g. Amazon SES's bounce sub-type, a provider's own error
   * code), used by `decideReason` before reading the text. Optional.
   */
  hint?: BounceReason;
  /**
   * The SMTP command the remote server answered (`RCPT`, `DATA`, `MAIL`, `HELO`, `CONN` for the
   * greeting/connection), when the report says (Postfix `in reply to end of DATA command`, Exim
   * `after RCPT TO`, a transcript's `>>> DATA`). "User unknown" after DATA is a content filter's
   * answer, not the address's. Optional.
   */
  command?: SmtpCommand;
}

export type SmtpCommand = 'CONN' | 'HELO' | 'MAIL' | 'RCPT' | 'DATA';

/** A failed recipient with its reason decided. */
export interface BounceVerdict extends FailedRecipient {
  reason: BounceReason;
  hard: boolean;
}

export type MailReading =
  | {
      kind: 'bounce';
      /** Every failed recipient the report names, first one first (at least one). */
      recipients: BounceVerdict[];
      /** Message-IDs (`<...>`) of the quoted original, wherever quoted; may be empty. */
      originalMessageIds: string[];
    }
  | {
      kind: 'complaint';
      /** `Feedback-Type` lower-cased (`abuse`, `fraud`, `not-spam`, ...); `abuse` when absent. */
      feedbackType: string;
      /** `Original-Rcpt-To` (or the quoted original's To) when given. */
      recipient: string | null;
      originalMessageIds: string[];
    }
  /** A delivery-status report that reports success or only a delay: not a bounce, not a person. */
  | { kind: 'delivery_notice'; originalMessageIds: string[] }
  | { kind: 'auto_reply' }
  | { kind: 'reply' };

/** `decideReason`'s input: what a report says about one recipient. */
export type ReasonInput = Pick<
  FailedRecipient,
  'status' | 'smtpCode' | 'diagnostic' | 'hint' | 'action' | 'command'
>;
