import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Inbox } from './entities/inbox.entity.js';
import { InboxesController } from './inboxes.controller.js';
import { InboxesRepository } from './inboxes.repository.js';
import { InboxesService } from './inboxes.service.js';
import { InboxHealthService } from './health/inbox-health.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([Inbox])],
  controllers: [InboxesController],
  providers: [InboxesRepository, InboxesService, InboxHealthService],
  exports: [InboxesRepository, InboxesService],
})
export class InboxesModule {}
