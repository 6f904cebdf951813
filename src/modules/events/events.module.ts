import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventRecord } from './entities/event.entity.js';
import { EventsRepository } from './events.repository.js';
import { Outbox } from './outbox.js';

/**
 * The events outbox: every module that changes something integrators hear about writes its event in
 * the same transaction (`Outbox`, outbox.ts); the webhooks module turns committed events into deliveries.
 */
@Module({
  imports: [TypeOrmModule.forFeature([EventRecord])],
  providers: [EventsRepository, Outbox],
  exports: [EventsRepository, Outbox],
})
export class EventsModule {}
