import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AnalyticsModule } from '../analytics/analytics.module.js';
import { CampaignsModule } from '../campaigns/campaigns.module.js';
import { ContactsModule } from '../contacts/contacts.module.js';
import { EventsModule } from '../events/events.module.js';
import { SequencesModule } from '../sequences/sequences.module.js';
import { SuppressionsModule } from '../suppressions/suppressions.module.js';
import { ThreadsModule } from '../threads/threads.module.js';
import { EnrollmentEffects } from './enrollment-effects.js';
import { EnrollmentStepsRepository } from './enrollment-steps.repository.js';
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
    // Threads before analytics: modules are registered in the order first met, and so are their
    // routes in the API document (openapi.json lists threads' paths before analytics').
    ThreadsModule,
    AnalyticsModule,
    EventsModule,
    EnrollmentScheduleModule,
  ],
  controllers: [EnrollmentsController],
  providers: [
    EnrollmentsRepository,
    EnrollmentTransitionsRepository,
    EnrollmentsService,
    EnrollmentEffects,
    EnrollmentStepsRepository,
  ],
  exports: [
    EnrollmentsService,
    EnrollmentsRepository,
    EnrollmentTransitionsRepository,
    EnrollmentEffects,
    EnrollmentStepsRepository,
  ],
})
export class EnrollmentsModule {}
