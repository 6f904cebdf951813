import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { TenantRepository } from '../../common/tenant/tenant.repository.js';
import { WebhookDelivery } from './entities/webhook-delivery.entity.js';
import { WebhookEndpoint } from './entities/webhook-endpoint.entity.js';
import { paginate, type Page, type PageQueryDto } from '../../common/http/pagination.js';
import type { EntityManager } from 'typeorm';

@Injectable()
export class WebhookEndpointsRepository extends TenantRepository<WebhookEndpoint> {
  constructor(@InjectRepository(WebhookEndpoint) repo: Repository<WebhookEndpoint>) {
    super(repo);
  }

  /** A page of the workspace's rows, newest first. */
  page(workspaceId: string, query: PageQueryDto): Promise<Page<WebhookEndpoint>> {
    return paginate(this.query(workspaceId, 'e'), 'e', query, {
      tenant: workspaceId,
      route: 'webhook_endpoints.index',
    });
  }

  /** Deletes the endpoint and its deliveries. */
  async deleteWithDeliveries(workspaceId: string, id: number, manager: EntityManager): Promise<void> {
    await manager.delete(WebhookDelivery, { workspaceId, endpointId: id });
    await manager.delete(WebhookEndpoint, { workspaceId, id });
  }
}

@Injectable()
export class WebhookDeliveriesRepository extends TenantRepository<WebhookDelivery> {
  constructor(@InjectRepository(WebhookDelivery) repo: Repository<WebhookDelivery>) {
    super(repo);
  }

  /** A page of one endpoint's deliveries. */
  pageOfEndpoint(
    workspaceId: string,
    endpointId: number,
    query: PageQueryDto,
  ): Promise<Page<WebhookDelivery>> {
    const qb = this.query(workspaceId, 'd').andWhere('d.endpointId = :endpointId', { endpointId });
    return paginate(qb, 'd', query, {
      tenant: workspaceId,
      route: `webhook_endpoints.${endpointId}.deliveries.index`,
    });
  }
}
