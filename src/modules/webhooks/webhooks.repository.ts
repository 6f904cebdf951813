import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { TenantRepository } from '../../common/tenant/tenant.repository.js';
import { WebhookDelivery } from './entities/webhook-delivery.entity.js';
import { WebhookEndpoint } from './entities/webhook-endpoint.entity.js';
import { paginate, type Page, type PageQueryDto } from '../../common/http/pagination.js';
import type { EntityManager } from 'typeorm';
import { rowsOf } from '../../database/query-rows.js';
import type { AttemptOutcome } from './webhook-http.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

@Injectable()
export class WebhookEndpointsRepository extends TenantRepository<WebhookEndpoint> {
  constructor(@InjectRepository(WebhookEndpoint) repo: Repository<WebhookEndpoint>) {
    super(repo);
  }

  /** Stores the endpoint's signing secret, sealed under its id. */
  async setSealedSecret(
    workspaceId: WorkspaceId,
    id: number,
    sealed: string,
    manager?: EntityManager,
  ): Promise<void> {
    await this.scope(workspaceId, manager).update({ id }, { secretSealed: sealed });
  }

  /** Stores a change of URL, event filter or description (`PATCH /webhook-endpoints/{id}`). */
  async applySettings(
    workspaceId: WorkspaceId,
    id: number,
    patch: Pick<Partial<WebhookEndpoint>, 'url' | 'events' | 'description'>,
  ): Promise<void> {
    await this.scope(workspaceId).update({ id }, patch);
  }

  /** Enabled again, its failure counter reset. */
  async enable(workspaceId: WorkspaceId, id: number): Promise<void> {
    await this.scope(workspaceId).update(
      { id },
      { status: 'enabled', disabledReason: null, consecutiveFailures: 0 },
    );
  }

  /** A page of the workspace's rows, newest first. */
  page(workspaceId: WorkspaceId, query: PageQueryDto): Promise<Page<WebhookEndpoint>> {
    return paginate(this.query(workspaceId, 'e'), 'e', query, {
      tenant: workspaceId,
      route: 'webhook_endpoints.index',
    });
  }

  /** Deletes the endpoint and its deliveries. */
  async deleteWithDeliveries(workspaceId: WorkspaceId, id: number, manager: EntityManager): Promise<void> {
    await manager.delete(WebhookDelivery, { workspaceId, endpointId: id });
    await manager.delete(WebhookEndpoint, { workspaceId, id });
  }
}

@Injectable()
export class WebhookDeliveriesRepository extends TenantRepository<WebhookDelivery> {
  constructor(@InjectRepository(WebhookDelivery) repo: Repository<WebhookDelivery>) {
    super(repo);
  }

  /**
   * Records a finished test delivery (`webhook.test`) of its event (recorded first, already
   * dispatched, by the events module); no worker attempts it. The endpoint's failure counter is not
   * touched.
   */
  async insertTestDelivery(
    workspaceId: WorkspaceId,
    d: {
      endpointId: number;
      eventId: string;
      outcome: AttemptOutcome;
      at: Date;
    },
    manager: EntityManager,
  ): Promise<number> {
    const o = d.outcome;
    const [row] = rowsOf<{ id: number }>(
      await manager.query(
        `INSERT INTO webhook_deliveries (workspace_id, endpoint_id, event_id, event, status, attempts,
           last_attempt_at, next_attempt_at, last_status_code, last_error, last_error_class, last_duration_ms,
           last_response_excerpt)
         VALUES ($1, $2, $3, 'webhook.test', $4, 1, $5, NULL, $6, $7, $8, $9, $10)
         RETURNING id`,
        [
          workspaceId,
          d.endpointId,
          d.eventId,
          o.ok ? 'succeeded' : 'failed',
          d.at,
          o.statusCode,
          o.error,
          o.errorClass,
          o.durationMs,
          o.excerpt,
        ],
      ),
    );
    return Number(row.id);
  }

  /**
   * Queues a delivery again with a fresh set of attempts, due now, when its event is still stored;
   * false when the event is gone (retention removed it): nothing changes then.
   */
  async requeueIfEventKept(
    workspaceId: WorkspaceId,
    endpointId: number,
    deliveryId: number,
  ): Promise<boolean> {
    const updated = rowsOf(
      await this.unscoped().query(
        `UPDATE webhook_deliveries d SET status = 'pending', attempts = 0, next_attempt_at = now()
         WHERE d.workspace_id = $1 AND d.endpoint_id = $2 AND d.id = $3
           AND EXISTS (SELECT 1 FROM events ev WHERE ev.id = d.event_id AND ev.workspace_id = $1)
         RETURNING d.id`,
        [workspaceId, endpointId, deliveryId],
      ),
    );
    return updated.length > 0;
  }

  /** A page of one endpoint's deliveries. */
  pageOfEndpoint(
    workspaceId: WorkspaceId,
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
