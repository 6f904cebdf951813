import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CampaignsModule } from '../campaigns/campaigns.module.js';
import { ContactsModule } from '../contacts/contacts.module.js';
import { SequencesModule } from '../sequences/sequences.module.js';
import { SuppressionsModule } from '../suppressions/suppressions.module.js';
import { EnrollmentsController } from './enrollments.controller.js';
import { EnrollmentsRepository, EnrollmentTransitionsRepository } from './enrollments.repository.js';
import { EnrollmentsService } from './enrollments.service.js';
import { Enrollment } from './entities/enrollment.entity.js';
import { EnrollmentScheduleModule } from './reevaluate-deferred.js';

@Module({
  imports: [
    TypeOrmModule.forFeature([Enrollment]),
    CampaignsModule,
    SequencesModule,
    ContactsModule,
    SuppressionsModule,
    EnrollmentScheduleModule,
  ],
  controllers: [EnrollmentsController],
  providers: [EnrollmentsRepository, EnrollmentTransitionsRepository, EnrollmentsService],
  exports: [EnrollmentsRepository, EnrollmentTransitionsRepository],
})
export class EnrollmentsModule {}
