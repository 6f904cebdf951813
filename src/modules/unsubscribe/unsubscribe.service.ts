/**
 * One-click unsubscribe (RFC 8058): suppress the address `unsubscribed`, stop the contact's active
 * and paused enrollments, count it once on the campaign of the mail the link came from. Re-running
 * it changes nothing and counts nothing.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ContactsRepository } from '../contacts/contacts.repository.js';
import { EnrollmentEffects } from '../enrollments/enrollment-effects.js';
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
    private readonly effects: EnrollmentEffects,
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
      const { already, enrollmentsStopped } = await this.effects.recordUnsubscribe(m, {
        workspaceId: c.workspaceId,
        contactId: c.contactId,
        email: contact.email,
        campaignId: c.campaignId,
        // Counted for the variant of the last message sent to the enrollment (its thread).
        attribution: { enrollmentId: c.enrollmentId },
      });
      return { email: contact.email, already, enrollmentsStopped };
    });
  }
}
