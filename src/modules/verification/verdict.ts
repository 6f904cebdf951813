/**
 * The verdict of a set of reasons (CONTRACT §24): the first five make it `invalid`; `disposable`,
 * `role`, `catch_all` and `typo` make it `risky`; `dns_unavailable` (or an inconclusive probe, which
 * adds no reason) makes it `unknown`; `free_mail` is information only.
 */
import type { VerificationReason, VerificationStatus } from '../contacts/entities/contact.entity.js';

export const INVALID_REASONS: ReadonlySet<VerificationReason> = new Set([
  'syntax',
  'no_domain',
  'no_mx',
  'null_mx',
  'mailbox_unknown',
]);
export const RISKY_REASONS: ReadonlySet<VerificationReason> = new Set([
  'disposable',
  'role',
  'catch_all',
  'typo',
]);

export interface Verdict {
  status: Exclude<VerificationStatus, 'pending'>;
  reasons: VerificationReason[];
  suggestion: string | null;
}

export function statusOf(reasons: readonly VerificationReason[], inconclusive = false): Verdict['status'] {
  if (reasons.some((r) => INVALID_REASONS.has(r))) return 'invalid';
  if (reasons.includes('dns_unavailable') || inconclusive) return 'unknown';
  if (reasons.some((r) => RISKY_REASONS.has(r))) return 'risky';
  return 'valid';
}

export function verdictOf(
  reasons: readonly VerificationReason[],
  suggestion: string | null,
  inconclusive = false,
): Verdict {
  const unique = [...new Set(reasons)];
  return { status: statusOf(unique, inconclusive), reasons: unique, suggestion };
}
