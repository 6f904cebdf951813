import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { TenantRepository } from '../../common/tenant/tenant-repository.js';
import { WebhookDelivery } from './entities/webhook-delivery.entity.js';
import { WebhookEndpoint } from './entities/webhook-endpoint.entity.js';

@Injectable()
export class WebhookEndpointsRepository extends TenantRepository<WebhookEndpoint> {
  constructor(@InjectRepository(WebhookEndpoint) repo: Repository<WebhookEndpoint>) {
    super(repo);
  }
}

@Injectable()
export class WebhookDeliveriesRepository extends TenantRepository<WebhookDelivery> {
  constructor(@InjectRepository(WebhookDelivery) repo: Repository<WebhookDelivery>) {
    super(repo);
  }
}
