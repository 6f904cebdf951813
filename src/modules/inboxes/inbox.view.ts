/** An inbox as the API shows it (never a host, user name or password). */
import type { Inbox, InboxStatus } from './entities/inbox.entity.js';

export interface InboxView {
  id: string;
  email: string;
  display_name: string | null;
  provider: 'smtp';
  status: InboxStatus;
  daily_limit: number;
  sent_today: number;
  domain: string;
  last_error_at: string | null;
  created_at: string;
}

const utcDay = (d: Date): string => d.toISOString().slice(0, 10);

export const toInboxView = (i: Inbox, now: Date = new Date()): InboxView => ({
  id: i.id,
  email: i.email,
  display_name: i.displayName,
  provider: i.provider,
  status: i.status,
  daily_limit: i.dailyLimit,
  // The counter belongs to the UTC day in sent_today_date; on a later day nothing was sent yet.
  sent_today: i.sentTodayDate === utcDay(now) ? i.sentToday : 0,
  domain: i.domain,
  last_error_at: i.lastErrorAt?.toISOString() ?? null,
  created_at: i.createdAt.toISOString(),
});
