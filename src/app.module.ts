import { Module, type DynamicModule, type Type } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKeyGuard } from './common/auth/api-key.guard.js';
import { IdempotencyRecord } from './common/idempotency/idempotency-record.entity.js';
import { EnvelopeExceptionFilter } from './common/http/exception.filter.js';
import { ServiceValidationPipe } from './common/http/validation.js';
import { IdempotencyInterceptor } from './common/idempotency/idempotency.interceptor.js';
import { QueueModule } from './common/queue/queue.module.js';
import { LifecycleModule } from './common/lifecycle/draining.js';
import { MetricsModule } from './modules/metrics/metrics.module.js';
import { RateLimitService } from './common/rate-limit/rate-limit.service.js';
import { RedisModule } from './common/redis/redis.module.js';
import { nestDataSourceOptions } from './database/data-source.js';
import { ApiKeysModule } from './modules/api-keys/api-keys.module.js';
import { ContactsModule } from './modules/contacts/contacts.module.js';
import { SuppressionsModule } from './modules/suppressions/suppressions.module.js';
import { SequencesModule } from './modules/sequences/sequences.module.js';
import { CampaignsModule } from './modules/campaigns/campaigns.module.js';
import { EnrollmentsModule } from './modules/enrollments/enrollments.module.js';
import { InboxesModule } from './modules/inboxes/inboxes.module.js';
import { ThreadsModule } from './modules/threads/threads.module.js';
import { AnalyticsModule } from './modules/analytics/analytics.module.js';
import { WebhooksModule } from './modules/webhooks/webhooks.module.js';
import { ImportsModule } from './modules/imports/imports.module.js';
import { SendingModule } from './modules/sending/sending.module.js';
import { InboundModule } from './modules/inbound/inbound.module.js';
import { ReplyCategoriesModule } from './modules/reply-categories/reply-categories.module.js';
import { UnsubscribeModule } from './modules/unsubscribe/unsubscribe.module.js';
import { HealthModule } from './modules/health/health.module.js';
import { OrganizationsModule } from './modules/organizations/organizations.module.js';
import { ProvisioningModule } from './modules/provisioning/provisioning.module.js';
import { WorkspacesModule } from './modules/workspaces/workspaces.module.js';
import { EventsModule } from './modules/events/events.module.js';
import { VerificationModule } from './modules/verification/verification.module.js';
import { WorkerModule } from './worker/worker.module.js';
import { IdempotencySweeper } from './common/idempotency/idempotency-sweeper.js';
import { IdempotencyRepository } from './common/idempotency/idempotency.repository.js';

/** Domain modules, one line each. */
export const DOMAIN_MODULES: Array<Type<unknown> | DynamicModule> = [
  OrganizationsModule,
  WorkspacesModule,
  ApiKeysModule,
  HealthModule,
  ProvisioningModule,
  EventsModule,
  ContactsModule,
  VerificationModule,
  SuppressionsModule,
  SequencesModule,
  CampaignsModule,
  EnrollmentsModule,
  InboxesModule,
  ThreadsModule,
  AnalyticsModule,
  WebhooksModule,
  ImportsModule,
  SendingModule,
  UnsubscribeModule,
  InboundModule,
  ReplyCategoriesModule,
  MetricsModule,
  WorkerModule,
];

/** Infrastructure shared by the HTTP app, the workers and the CLI. */
export const CORE_MODULES: Array<Type<unknown> | DynamicModule> = [
  TypeOrmModule.forRootAsync({ useFactory: () => nestDataSourceOptions() }),
  RedisModule,
  QueueModule,
  LifecycleModule,
];

@Module({
  imports: [...CORE_MODULES, TypeOrmModule.forFeature([IdempotencyRecord]), ...DOMAIN_MODULES],
  providers: [
    RateLimitService,
    { provide: APP_GUARD, useClass: ApiKeyGuard },
    // Bound to POST and PATCH handlers by bindIdempotency() (app.factory.ts), not globally.
    IdempotencyRepository,
    IdempotencyInterceptor,
    IdempotencySweeper,
    { provide: APP_PIPE, useClass: ServiceValidationPipe },
    { provide: APP_FILTER, useClass: EnvelopeExceptionFilter },
  ],
})
export class AppModule {}
