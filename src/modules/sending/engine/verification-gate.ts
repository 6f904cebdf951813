/**
 * The address gate (CONTRACT §24), the one place the engine reads a contact's verdict. Under the
 * campaign's `verification` setting a step is sent, skipped (`address_invalid` / `address_risky`), or
 * waits: a contact still `pending` is asked again every minute, at most PENDING_WAIT_MS after its
 * enrollment was made, then sent as if `unknown`. With VERIFY_ADDRESSES=false nothing is checked and
 * every contact counts as `unknown` (sent).
 */
import type { CampaignVerification } from '../../campaigns/entities/campaign.entity.js';

export const PENDING_WAIT_MS = 10 * 60_000;
export const PENDING_RETRY_MS = 60_000;

export type GateDecision =
  | { kind: 'send' }
  | { kind: 'skip'; reason: 'address_invalid' | 'address_risky' }
  | { kind: 'wait'; until: Date };

export function addressGate(
  setting: CampaignVerification,
  status: unknown,
  enrolledAt: Date,
  now: Date,
  verifyAddresses: boolean,
): GateDecision {
  if (setting === 'off' || !verifyAddresses) return { kind: 'send' };
  if (status === 'invalid') return { kind: 'skip', reason: 'address_invalid' };
  if (status === 'risky' && setting === 'skip_risky') return { kind: 'skip', reason: 'address_risky' };
  if (status === 'pending') {
    const deadline = enrolledAt.getTime() + PENDING_WAIT_MS;
    if (now.getTime() < deadline) {
      return { kind: 'wait', until: new Date(Math.min(deadline, now.getTime() + PENDING_RETRY_MS)) };
    }
  }
  return { kind: 'send' };
}
