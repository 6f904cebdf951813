import { Module } from '@nestjs/common';
import { ContactsModule } from '../contacts/contacts.module.js';
import { EnrollmentsModule } from '../enrollments/enrollments.module.js';
import { SuppressionsModule } from '../suppressions/suppressions.module.js';
import { UnsubscribeController } from './unsubscribe.controller.js';
import { UnsubscribeService } from './unsubscribe.service.js';

/**
 * One-click unsubscribe (`GET`/`POST /u/{token}`, RFC 8058): signed tokens (unsubscribe-token.ts, also
 * used by the send path to build `List-Unsubscribe`), a confirmation page, and the suppression.
 */
@Module({
  imports: [ContactsModule, SuppressionsModule, EnrollmentsModule],
  controllers: [UnsubscribeController],
  providers: [UnsubscribeService],
})
export class UnsubscribeModule {}
