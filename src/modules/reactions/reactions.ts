/**
 * What happens to a contact after mail arrives: the one owner of the decision (docs/sequences-that-react.md).
 * Ingestion (a reply, an auto-reply, a bounce report, a complaint) and the reply categories (a category
 * decided by the rules, the AI or a correction) record what arrived and call here, in their
 * transaction, for its consequences on the contact's enrollments, the suppression list and the
 * contact: stops, unsubscribes, and the moves, holds and referrals of sequences that react. Each table
 * is still written through its owner (enrollments, suppressions, contacts, threads, events).
 */
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { EnrollmentEffects, type Bounce, type Complaint } from '../enrollments/enrollment-effects.js';
import type { StepAttribution } from '../analytics/metrics.js';
import type { ReplyCategory } from '../threads/reply-category.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

export interface ReplyArrived {
  workspaceId: WorkspaceId;
  /** The enrollment of the message replied to, if any. */
  enrollmentId: number | null;
  campaignId: number | null;
  /** The address the replied-to message went to. */
  email: string;
  /** The campaign's stop-on-reply policy (a campaign-less thread: stop, the contact only). */
  policy: { stopOnReply: boolean; scope: 'contact' | 'domain' };
  /** The company domain to stop on (null: a free-mail or unreadable domain, never stopped company-wide). */
  companyDomain: string | null;
}

export interface CategoryArrived {
  workspaceId: WorkspaceId;
  threadId: number;
  category: ReplyCategory;
  /** The reply's thread: its contact, the contact's address and the campaign (null: none). */
  context: { contact_id: number; email: string | null; campaign_id: number | null } | undefined;
}

@Injectable()
export class Reactions {
  constructor(private readonly effects: EnrollmentEffects) {}

  /**
   * A person's reply was recorded: the enrollment of the message replied to stops `replied` (when the
   * campaign stops on reply), and with the `domain` scope every enrollment of the campaign at the
   * same company domain.
   */
  async afterReply(m: EntityManager, r: ReplyArrived): Promise<void> {
    const ws = r.workspaceId;
    if (r.enrollmentId !== null && r.policy.stopOnReply) {
      await this.effects.stop(m, ws, r.enrollmentId, 'replied');
    }
    if (r.campaignId && r.policy.stopOnReply && r.policy.scope === 'domain' && r.companyDomain) {
      await this.effects.stopCompanyOnReply(m, ws, r.campaignId, r.companyDomain, r.email);
    }
  }

  /**
   * A reply's category was decided (or corrected): `unsubscribe_request` unsubscribes the address
   * exactly like the one-click link (`EnrollmentEffects.recordUnsubscribe`).
   */
  async afterCategory(m: EntityManager, c: CategoryArrived): Promise<void> {
    const ws = c.workspaceId;
    const context = c.context;
    if (c.category === 'unsubscribe_request' && context?.email) {
      // Takes the workspace's suppression lock before any contact row is touched.
      await this.effects.recordUnsubscribe(m, {
        workspaceId: ws,
        contactId: context.contact_id,
        email: context.email,
        campaignId: context.campaign_id,
        attribution: { threadId: c.threadId } satisfies StepAttribution,
      });
    }
  }

  /** A bounce report matched to a sent message (CONTRACT §18). */
  afterBounce(m: EntityManager, b: Bounce): Promise<{ suppressed: boolean; senderSide: boolean }> {
    return this.effects.recordBounce(m, b);
  }

  /** A spam complaint matched to a sent message. */
  afterComplaint(m: EntityManager, c: Complaint): Promise<boolean> {
    return this.effects.recordComplaint(m, c);
  }
}
