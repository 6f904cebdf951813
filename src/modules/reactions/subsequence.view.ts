/** A subsequence as the API shows it (CONTRACT §23). Never the entity. */
import type { Subsequence, SubsequenceStatus, SubsequenceTrigger } from './entities/subsequence.entity.js';

export interface SubsequenceView {
  id: number;
  campaign_id: number;
  name: string;
  trigger: SubsequenceTrigger;
  sequence_id: number;
  start_after_days: number;
  position: number;
  status: SubsequenceStatus;
  created_at: string;
}

export function toSubsequenceView(s: Subsequence): SubsequenceView {
  return {
    id: Number(s.id),
    campaign_id: Number(s.campaignId),
    name: s.name,
    trigger: s.trigger,
    sequence_id: Number(s.sequenceId),
    start_after_days: s.startAfterDays,
    position: s.position,
    status: s.status,
    created_at: s.createdAt.toISOString(),
  };
}
