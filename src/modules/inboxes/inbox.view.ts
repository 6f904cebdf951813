/** An inbox as the API shows it (never a host, user name, password, token or secret). */
import type {
  Inbox,
  InboxAuth,
  InboxProvider,
  InboxStatus,
  InboxTransport,
} from './entities/inbox.entity.js';
import { effectiveDailyLimit } from './ramp-up.js';

export interface InboxRampUpView {
  start: number;
  increase_per_day: number;
  started_at: string;
}

export interface InboxView {
  id: string;
  email: string;
  display_name: string | null;
  provider: InboxProvider;
  auth: InboxAuth;
  transport: InboxTransport;
  status: InboxStatus;
  daily_limit: number;
  ramp_up: InboxRampUpView | null;
  effective_daily_limit: number;
  sent_today: number;
  domain: string;
  last_error: string | null;
  last_error_at: string | null;
  created_at: string;
}

const utcDay = (d: Date): string => d.toISOString().slice(0, 10);

export const toInboxView = (i: Inbox, now: Date = new Date()): InboxView => ({
  id: i.id,
  email: i.email,
  display_name: i.displayName,
  provider: i.provider,
  auth: i.auth,
  transport: i.transport,
  status: i.status,
  daily_limit: i.dailyLimit,
  ramp_up:
    i.rampStart !== null && i.rampIncreasePerDay !== null && i.rampStartedAt !== null
      ? {
          start: i.rampStart,
          increase_per_day: i.rampIncreasePerDay,
          started_at: i.rampStartedAt.toISOString(),
        }
      : null,
  effective_daily_limit: effectiveDailyLimit(i, now),
  // The counter belongs to the UTC day in sent_today_date; on a later day nothing was sent yet.
  sent_today: i.sentTodayDate === utcDay(now) ? i.sentToday : 0,
  domain: i.domain,
  last_error: i.lastError,
  last_error_at: i.lastErrorAt?.toISOString() ?? null,
  created_at: i.createdAt.toISOString(),
});
