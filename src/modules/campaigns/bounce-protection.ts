/**
 * Bounce protection (workspace config `bounce_rate_pause_percent`, default 5, 0 = off): when a
 * campaign's hard bounces among its last 100 sends exceed that percentage, the service pauses it with
 * `paused_reason: "bounce_rate"`. The rate is only judged once the campaign has 20 sends in its window
 * (two early bounces are not a rate). Re-activating the campaign starts a new window: sends before
 * `bounce_window_started_at` no longer count, or the old bounces would pause it again at once.
 *
 * It runs where a hard bounce is recorded (an SMTP 5xx, or a DSN), in that transaction: a statement
 * per bounce, none per send.
 */
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { logger } from '../../common/logging/logger.js';
import { effectiveConfig, type WorkspaceConfig } from '../workspaces/workspace-config.js';
import { CampaignGuardsRepository } from './campaigns.repository.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

/** The sends a rate is computed over (the newest of the campaign's window). */
export const BOUNCE_WINDOW_SENDS = 100;
/** Fewer sends than this are not judged. */
export const BOUNCE_MIN_SENDS = 20;

/** True when `bounced` of `sends` exceeds `percent` (strictly), with enough sends to judge; 0 = off. */
export function bounceRateExceeded(sends: number, bounced: number, percent: number): boolean {
  return percent > 0 && sends >= BOUNCE_MIN_SENDS && bounced * 100 > percent * sends;
}

@Injectable()
export class BounceProtection {
  constructor(private readonly guards: CampaignGuardsRepository) {}

  /**
   * Pauses the campaign when its recent bounce rate is over the workspace's threshold; whether it did.
   * Run in the transaction that recorded a hard bounce of the campaign.
   */
  async pauseOnBounceRate(m: EntityManager, workspaceId: WorkspaceId, campaignId: number): Promise<boolean> {
    const recent = await this.guards.recentSendOutcomes(workspaceId, campaignId, BOUNCE_WINDOW_SENDS, m);
    if (!recent) return false;
    const percent = effectiveConfig(recent.config as Partial<WorkspaceConfig>).bounce_rate_pause_percent;
    if (!bounceRateExceeded(recent.sends, recent.bounced, percent)) return false;
    const paused = await this.guards.pauseForBounceRate(workspaceId, campaignId, m);
    if (paused) {
      logger.warn(
        { workspaceId, campaignId, sends: recent.sends, bounced: recent.bounced, percent },
        'campaign paused: hard bounce rate over the workspace threshold',
      );
    }
    return paused;
  }
}
