/** A bounce verdict as the API shows it (messages, `email.bounced`): CONTRACT §18. */
import type { BounceReason, BounceVerdict } from './types.js';

export interface BounceView {
  reason: BounceReason;
  hard: boolean;
  /** Enhanced status code (`5.1.1`) or null. */
  status: string | null;
  /** SMTP reply code (`550`) or null. */
  smtp_code: number | null;
  /** The remote server's words, at most 1,000 characters, or null. */
  diagnostic: string | null;
}

export const MAX_DIAGNOSTIC_CHARS = 1000;

export const toBounceView = (
  v: Pick<BounceVerdict, 'reason' | 'hard' | 'status' | 'smtpCode' | 'diagnostic'>,
): BounceView => ({
  reason: v.reason,
  hard: v.hard,
  status: v.status,
  smtp_code: v.smtpCode,
  diagnostic: v.diagnostic === null ? null : v.diagnostic.replaceAll('\0', '').slice(0, MAX_DIAGNOSTIC_CHARS),
});
