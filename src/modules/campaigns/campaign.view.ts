/** A campaign as the API shows it. */
import type { Campaign, CampaignSchedule } from './entities/campaign.entity.js';

export interface CampaignView {
  id: number;
  name: string;
  sequence_id: number | null;
  status: Campaign['status'];
  inbox_ids: string[];
  schedule: CampaignSchedule | null;
  daily_limit: number | null;
  stop_on_reply: boolean;
  created_at: string;
  updated_at: string;
  activated_at: string | null;
  start_at: string | null;
  send_in_contact_timezone: boolean;
  stop_on_reply_scope: Campaign['stopOnReplyScope'];
  verification: Campaign['verification'];
  paused_reason: Campaign['pausedReason'];
}

export const toCampaignView = (c: Campaign): CampaignView => ({
  id: c.id,
  name: c.name,
  sequence_id: c.sequenceId,
  status: c.status,
  inbox_ids: [...(c.inboxIds ?? [])],
  schedule: c.schedule
    ? {
        timezone: c.schedule.timezone,
        days: [...c.schedule.days],
        start_time: c.schedule.start_time,
        end_time: c.schedule.end_time,
      }
    : null,
  daily_limit: c.dailyLimit,
  stop_on_reply: c.stopOnReply,
  created_at: c.createdAt.toISOString(),
  updated_at: c.updatedAt.toISOString(),
  activated_at: c.activatedAt?.toISOString() ?? null,
  start_at: c.startAt?.toISOString() ?? null,
  send_in_contact_timezone: c.sendInContactTimezone,
  stop_on_reply_scope: c.stopOnReplyScope,
  verification: c.verification,
  paused_reason: c.status === 'paused' ? (c.pausedReason ?? 'manual') : null,
});
