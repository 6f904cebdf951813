/** The campaign state machine: draft → active ↔ paused; active|paused → archived. */
import type { CampaignStatus } from './entities/campaign.entity.js';

export const CAMPAIGN_STATUSES: readonly CampaignStatus[] = ['draft', 'active', 'paused', 'archived'];

const ALLOWED: Record<CampaignStatus, readonly CampaignStatus[]> = {
  draft: ['active'],
  active: ['paused', 'archived'],
  paused: ['active', 'archived'],
  archived: [],
};

/** True when `from → to` is a move the table allows. Staying in the same status is not a move. */
export function campaignMoveAllowed(from: CampaignStatus, to: CampaignStatus): boolean {
  return ALLOWED[from].includes(to);
}
