import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AnalyticsModule } from '../analytics/analytics.module.js';
import { ContactsModule } from '../contacts/contacts.module.js';
import { EnrollmentsModule } from '../enrollments/enrollments.module.js';
import { EventsModule } from '../events/events.module.js';
import { InboxesModule } from '../inboxes/inboxes.module.js';
import { ReactionsModule } from '../reactions/reactions.module.js';
import { ThreadsModule } from '../threads/threads.module.js';
import { CapacityRepository } from './engine/capacity.repository.js';
import { SendRepository } from './engine/send.repository.js';
import { InboxPacing } from './entities/inbox-pacing.entity.js';
import { SendCounter } from './entities/send-counter.entity.js';
import { SendEngine } from './send-engine.service.js';
import { SmtpTransportPool } from './smtp-transport.pool.js';
import { MailSenders } from './mail-senders.js';
import { ManualReplyController } from './manual/manual-reply.controller.js';
import { ManualReplyRepository } from './manual/manual-reply.repository.js';
import { ManualReplyService } from './manual/manual-reply.service.js';
import { ManualReplySweeper } from './manual/manual-reply-sweeper.js';

/**
 * The sending engine: the scheduler and send path and its SMTP transport pool. Its `send` loop is
 * declared in the worker registry (src/worker/worker.registry.ts). Manual replies
 * (`POST /threads/{id}/messages`, manual/) share its transports, capacity and failure handling.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([InboxPacing, SendCounter]),
    InboxesModule,
    AnalyticsModule,
    ContactsModule,
    EnrollmentsModule,
    EventsModule,
    ThreadsModule,
    ReactionsModule,
  ],
  controllers: [ManualReplyController],
  providers: [
    SendRepository,
    CapacityRepository,
    SendEngine,
    SmtpTransportPool,
    MailSenders,
    ManualReplyRepository,
    ManualReplyService,
    ManualReplySweeper,
  ],
  exports: [SendEngine],
})
export class SendingModule {}
