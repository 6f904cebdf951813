import { Module } from '@nestjs/common';
import { AnalyticsModule } from '../analytics/analytics.module.js';
import { ContactsModule } from '../contacts/contacts.module.js';
import { ReactionsModule } from '../reactions/reactions.module.js';
import { EventsModule } from '../events/events.module.js';
import { InboxesModule } from '../inboxes/inboxes.module.js';
import { ThreadsModule } from '../threads/threads.module.js';
import { ImapConnections } from './imap-connections.service.js';
import { ApiMailboxReader } from './api-mailbox-reader.js';
import { ApiMailboxes } from './api-mailboxes.service.js';
import { InboundController } from './inbound.controller.js';
import { InboundRepository } from './inbound.repository.js';
import { IngestionService } from './ingestion.service.js';
import { MailboxReader } from './mailbox-reader.js';

/**
 * Inbound mail: replies, auto-replies and bounces, read over long-lived IMAP connections
 * (`ImapConnections`, run by the worker role; docs/mailboxes.md), through the providers' own APIs for
 * inboxes with `transport: api` (`ApiMailboxes`; docs/provider-apis.md), and by `POST /inbound/{inbox_id}` for MTA pipes. Both hand raw messages to `IngestionService`,
 * which classifies them and applies their effects. The inbound route reads its own body, after
 * checking the inbox's inbound secret.
 */
@Module({
  imports: [AnalyticsModule, ContactsModule, ReactionsModule, EventsModule, InboxesModule, ThreadsModule],
  controllers: [InboundController],
  providers: [
    InboundRepository,
    IngestionService,
    MailboxReader,
    ImapConnections,
    ApiMailboxReader,
    ApiMailboxes,
  ],
  exports: [IngestionService, ImapConnections, ApiMailboxes],
})
export class InboundModule {}
