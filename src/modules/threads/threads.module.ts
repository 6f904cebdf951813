import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Message } from './entities/message.entity.js';
import { Thread } from './entities/thread.entity.js';
import { ThreadsController } from './threads.controller.js';
import { MessagesRepository, ThreadsRepository } from './threads.repository.js';
import { ThreadsService } from './threads.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([Thread, Message])],
  controllers: [ThreadsController],
  providers: [ThreadsRepository, MessagesRepository, ThreadsService],
  exports: [ThreadsRepository, MessagesRepository],
})
export class ThreadsModule {}
