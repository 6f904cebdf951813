import { ThreadMovesRepository } from './thread-moves.repository.js';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Message } from './entities/message.entity.js';
import { Thread } from './entities/thread.entity.js';
import { MessageWritesRepository } from './message-writes.repository.js';
import { ReplyCategoryWritesRepository } from './reply-category-writes.repository.js';
import { MessageRetentionService } from './message-retention.service.js';
import { ThreadsController } from './threads.controller.js';
import { MessagesRepository, ThreadsRepository } from './threads.repository.js';
import { ThreadsService } from './threads.service.js';

/**
 * Threads and messages: read by the API; written only here, the send path, manual replies and inbound
 * mail calling `MessageWritesRepository`; bodies purged by retention.
 */
@Module({
  imports: [TypeOrmModule.forFeature([Thread, Message])],
  controllers: [ThreadsController],
  providers: [
    ThreadMovesRepository,
    ThreadsRepository,
    MessagesRepository,
    MessageWritesRepository,
    ReplyCategoryWritesRepository,
    ThreadsService,
    MessageRetentionService,
  ],
  exports: [
    ThreadMovesRepository,
    ThreadsRepository,
    MessagesRepository,
    MessageWritesRepository,
    ReplyCategoryWritesRepository,
    MessageRetentionService,
  ],
})
export class ThreadsModule {}
