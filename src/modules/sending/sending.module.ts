import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { InboxPacing } from './entities/inbox-pacing.entity.js';
import { SendCounter } from './entities/send-counter.entity.js';
import { workerProviders } from '../../common/queue/worker-providers.js';
import { InboundModule } from '../inbound/inbound.module.js';
import { ThreadsModule } from '../threads/threads.module.js';
import { SendEngine } from './send-engine.service.js';
import { SendingWorker } from './sending.worker.js';
import { SmtpTransportPool } from './smtp-transport.pool.js';

/**
 * The sending engine: the scheduler and send path and its SMTP transport pool. In worker processes
 * `SendingWorker` also runs the IMAP poll (inbound module) and the body retention purge (threads).
 */
@Module({
  imports: [TypeOrmModule.forFeature([InboxPacing, SendCounter]), InboundModule, ThreadsModule],
  providers: [SendEngine, SmtpTransportPool, ...workerProviders(SendingWorker)],
  exports: [SendEngine],
})
export class SendingModule {}
