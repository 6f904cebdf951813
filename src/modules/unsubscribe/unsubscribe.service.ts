/**
 * One-click unsubscribe (RFC 8058): suppress the address `unsubscribed`, stop the contact's active
 * and paused enrollments, count it once on the campaign of the mail the link came from. Re-running
 * it changes nothing and counts nothing.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { bumpMetric } from '../analytics/metrics.js';
import { suppressAddress } from '../suppressions/suppression-store.js';
import { rows } from '../../database/query-rows.js';
import type { UnsubscribeClaims } from './unsubscribe-token.js';

export interface UnsubscribeResult {
  email: string;
  already: boolean;
  enrollmentsStopped: number;
}

@Injectable()
export class UnsubscribeService {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** The address a token is for, or null when its contact is gone. */
  async addressOf(c: UnsubscribeClaims): Promise<string | null> {
    const [contact] = await rows<{ email: string }>(
      this.ds.manager,
      'SELECT email FROM contacts WHERE workspace_id = $1 AND id = $2',
      [c.workspaceId, c.contactId],
    );
    return contact?.email ?? null;
  }

  async unsubscribe(c: UnsubscribeClaims): Promise<UnsubscribeResult | null> {
    return this.ds.transaction(async (m) => {
      const [contact] = await rows<{ email: string }>(
        m,
        'SELECT email FROM contacts WHERE workspace_id = $1 AND id = $2',
        [c.workspaceId, c.contactId],
      );
      if (!contact) return null;
      const [existing] = await rows<{ reason: string }>(
        m,
        'SELECT reason FROM suppressions WHERE workspace_id = $1 AND email = $2',
        [c.workspaceId, contact.email],
      );
      await suppressAddress(m, c.workspaceId, contact.email, 'unsubscribed');
      const stopped = await rows(
        m,
        `UPDATE enrollments SET status = 'stopped', stop_reason = 'unsubscribed', stopped_at = now(),
           next_step_at = NULL, updated_at = now()
         WHERE workspace_id = $1 AND contact_id = $2 AND status IN ('active', 'paused')
         RETURNING id`,
        [c.workspaceId, c.contactId],
      );
      const already = existing?.reason === 'unsubscribed';
      if (!already) await bumpMetric(m, c.workspaceId, c.campaignId, 'unsubscribed');
      return { email: contact.email, already, enrollmentsStopped: stopped.length };
    });
  }
}
