/**
 * One-click unsubscribe (RFC 8058): suppress the address `unsubscribed`, stop the contact's active
 * and paused enrollments, count it once on the campaign of the mail the link came from. Re-running
 * it changes nothing and counts nothing.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { bumpMetric, bumpStepMetric } from '../analytics/metrics.js';
import { suppressAddress } from '../suppressions/suppression-store.js';
import { ContactsRepository } from '../contacts/contacts.repository.js';
import { EnrollmentTransitionsRepository } from '../enrollments/enrollments.repository.js';
import { SuppressionsRepository } from '../suppressions/suppressions.repository.js';
import type { UnsubscribeClaims } from './unsubscribe-token.js';

export interface UnsubscribeResult {
  email: string;
  already: boolean;
  enrollmentsStopped: number;
}

@Injectable()
export class UnsubscribeService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly contacts: ContactsRepository,
    private readonly suppressions: SuppressionsRepository,
    private readonly transitions: EnrollmentTransitionsRepository,
  ) {}

  /** The address a token is for, or null when its contact is gone. */
  async addressOf(c: UnsubscribeClaims): Promise<string | null> {
    const contact = await this.contacts.findOne(c.workspaceId, { id: c.contactId });
    return contact?.email ?? null;
  }

  async unsubscribe(c: UnsubscribeClaims): Promise<UnsubscribeResult | null> {
    return this.ds.transaction(async (m) => {
      const contact = await this.contacts.findOne(c.workspaceId, { id: c.contactId }, m);
      if (!contact) return null;
      const existing = await this.suppressions.findOne(c.workspaceId, { email: contact.email }, m);
      await suppressAddress(m, c.workspaceId, contact.email, 'unsubscribed');
      const stopped = await this.transitions.stopAllOfContact(c.workspaceId, c.contactId, 'unsubscribed', m);
      const already = existing?.reason === 'unsubscribed';
      if (!already && c.campaignId > 0) {
        await bumpMetric(m, c.workspaceId, c.campaignId, 'unsubscribed');
        // Counted for the variant of the last message sent to the enrollment (its thread).
        await bumpStepMetric(m, c.workspaceId, c.campaignId, 'unsubscribed', {
          enrollmentId: c.enrollmentId,
        });
      }
      return { email: contact.email, already, enrollmentsStopped: stopped };
    });
  }
}
