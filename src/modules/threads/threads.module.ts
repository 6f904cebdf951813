import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Message } from './entities/message.entity.js';
import { Thread } from './entities/thread.entity.js';
import { MessageRetentionService } from './message-retention.service.js';
import { ThreadsController } from './threads.controller.js';
import { MessagesRepository, ThreadsRepository } from './threads.repository.js';
import { ThreadsService } from './threads.service.js';

/** Threads and messages: read by the API, written by the send path and inbound mail; bodies purged by retention. */
@Module({
  imports: [TypeOrmModule.forFeature([Thread, Message])],
  controllers: [ThreadsController],
  providers: [ThreadsRepository, MessagesRepository, ThreadsService, MessageRetentionService],
  exports: [ThreadsRepository, MessagesRepository, MessageRetentionService],
})
export class ThreadsModule {}
