import { CAMPAIGN_STATUSES, campaignMoveAllowed } from './campaign-state.js';
import type { CampaignStatus } from './entities/campaign.entity.js';

/** Every from → to pair; true = allowed, false = 409. Staying put is not a move. */
const EXPECTED: Record<CampaignStatus, Record<CampaignStatus, boolean>> = {
  draft: { draft: false, active: true, paused: false, archived: false },
  active: { draft: false, active: false, paused: true, archived: true },
  paused: { draft: false, active: true, paused: false, archived: true },
  archived: { draft: false, active: false, paused: false, archived: false },
};

describe('campaign transition table', () => {
  const pairs = CAMPAIGN_STATUSES.flatMap((from) =>
    CAMPAIGN_STATUSES.map((to) => [from, to, EXPECTED[from][to]] as const),
  );

  it('covers 4 × 4 pairs', () => {
    expect(pairs).toHaveLength(16);
  });

  it.each(pairs)('%s → %s allowed: %s', (from, to, allowed) => {
    expect(campaignMoveAllowed(from, to)).toBe(allowed);
  });
});
