import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CapacityRepository } from './engine/capacity.repository.js';
import { SendRepository } from './engine/send.repository.js';
import { InboxPacing } from './entities/inbox-pacing.entity.js';
import { SendCounter } from './entities/send-counter.entity.js';
import { SendEngine } from './send-engine.service.js';
import { SmtpTransportPool } from './smtp-transport.pool.js';

/**
 * The sending engine: the scheduler and send path and its SMTP transport pool. Its `send` loop is
 * declared in the worker registry (src/worker/worker.registry.ts).
 */
@Module({
  imports: [TypeOrmModule.forFeature([InboxPacing, SendCounter])],
  providers: [SendRepository, CapacityRepository, SendEngine, SmtpTransportPool],
  exports: [SendEngine],
})
export class SendingModule {}
