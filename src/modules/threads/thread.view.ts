/** A thread as the API and events show it. */
import type { ReplyCategory } from './reply-category.js';
import type { Thread } from './entities/thread.entity.js';

const iso = (d: Date | null): string | null => d?.toISOString() ?? null;

export interface ThreadView {
  id: number;
  inbox_id: string;
  contact_id: number;
  enrollment_id: number | null;
  campaign_id: number | null;
  subject: string;
  message_count: number;
  last_message_at: string | null;
  /** The category of the thread's latest categorised reply; null before one (CONTRACT §20). */
  category: ReplyCategory | null;
  /** A `not_now` reply's day to come back (CONTRACT §23). */
  follow_up_at: string | null;
  /** The address a `wrong_person` reply pointed to. */
  referral_email: string | null;
  created_at: string;
}

export const toThreadView = (t: Thread): ThreadView => ({
  id: t.id,
  inbox_id: t.inboxId,
  contact_id: t.contactId,
  enrollment_id: t.enrollmentId,
  campaign_id: t.campaignId,
  subject: t.subject,
  message_count: t.messageCount,
  last_message_at: iso(t.lastMessageAt),
  category: t.category ?? null,
  follow_up_at: iso(t.followUpAt ?? null),
  referral_email: t.referralEmail ?? null,
  created_at: t.createdAt.toISOString(),
});
