import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CampaignsModule } from '../campaigns/campaigns.module.js';
import { ContactsModule } from '../contacts/contacts.module.js';
import { EnrollmentsModule } from '../enrollments/enrollments.module.js';
import { EventsModule } from '../events/events.module.js';
import { SequencesModule } from '../sequences/sequences.module.js';
import { SuppressionsModule } from '../suppressions/suppressions.module.js';
import { ThreadsModule } from '../threads/threads.module.js';
import { Subsequence } from './entities/subsequence.entity.js';
import { Reactions } from './reactions.js';
import { SubsequencesController } from './subsequences.controller.js';
import { SubsequencesRepository } from './subsequences.repository.js';
import { SubsequencesService } from './subsequences.service.js';

/**
 * Sequences that react (CONTRACT §23): what happens to a contact after mail arrives (`Reactions`,
 * called by inbound mail and by the reply categories in their transactions) and the campaigns'
 * subsequences it moves contacts into (`/campaigns/{id}/subsequences`).
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([Subsequence]),
    CampaignsModule,
    ContactsModule,
    SequencesModule,
    EnrollmentsModule,
    EventsModule,
    SuppressionsModule,
    ThreadsModule,
  ],
  controllers: [SubsequencesController],
  providers: [Reactions, SubsequencesRepository, SubsequencesService],
  exports: [Reactions],
})
export class ReactionsModule {}
