/** A suppression list entry as the API shows it. */
import type { Suppression, SuppressionReason } from './entities/suppression.entity.js';

export interface SuppressionView {
  id: number;
  email: string | null;
  domain: string | null;
  reason: SuppressionReason;
  created_at: string;
}

export const toSuppressionView = (s: Suppression): SuppressionView => ({
  id: s.id,
  email: s.email,
  domain: s.domain,
  reason: s.reason,
  created_at: s.createdAt.toISOString(),
});
