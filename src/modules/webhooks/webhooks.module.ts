import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { workerProviders } from '../../common/queue/worker-providers.js';
import { WebhookDelivery } from './entities/webhook-delivery.entity.js';
import { WebhookEndpoint } from './entities/webhook-endpoint.entity.js';
import { EventsModule } from '../events/events.module.js';
import { EventRetentionService } from './event-retention.service.js';
import { WebhookDeliveryRepository } from './webhook-delivery.repository.js';
import { WebhookDeliveryWorker } from './webhook-delivery.worker.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { WebhookTester } from './webhook-tester.js';
import { WebhooksController } from './webhooks.controller.js';
import { WebhookDeliveriesRepository, WebhookEndpointsRepository } from './webhooks.repository.js';
import { WebhooksService } from './webhooks.service.js';

/**
 * Webhook endpoints (API) and, in worker processes, the outbox dispatcher and the delivery loop
 *. State lives in Postgres; every worker process runs both loops concurrently.
 */
@Module({
  imports: [TypeOrmModule.forFeature([WebhookEndpoint, WebhookDelivery]), EventsModule],
  controllers: [WebhooksController],
  providers: [
    WebhooksService,
    WebhookEndpointsRepository,
    WebhookDeliveriesRepository,
    WebhookDeliveryRepository,
    EventRetentionService,
    WebhookTester,
    ...workerProviders(WebhookDeliveryWorker, WebhookDispatcher),
  ],
  exports: [WebhooksService],
})
export class WebhooksModule {}
