import { Module } from '@nestjs/common';
import { RateLimitService } from '../../common/rate-limit/rate-limit.service.js';
import { ContactsModule } from '../contacts/contacts.module.js';
import { AddressVerifier } from './address-verifier.js';
import { MailboxProber } from './mailbox-prober.js';
import { VerificationController } from './verification.controller.js';
import { VerificationService } from './verification.service.js';

/**
 * Address verification (CONTRACT §24): the checks, the DNS cache, the SMTP probe (off by default),
 * the background pass (`contact-verification` in the worker registry) and the verify routes. Owns no table: the verdict
 * lives on contacts, written through the contacts module's `ContactVerificationRepository`.
 */
@Module({
  imports: [ContactsModule],
  controllers: [VerificationController],
  providers: [RateLimitService, MailboxProber, AddressVerifier, VerificationService],
  exports: [VerificationService],
})
export class VerificationModule {}
