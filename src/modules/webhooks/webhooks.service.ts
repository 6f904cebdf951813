/**
 * Webhook endpoints and their delivery log. Targets are checked here at create and
 * update (422 `field: "url"`) and again by the worker on every attempt.
 */
import { Injectable, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { randomUUID } from 'node:crypto';
import { seal, unseal } from '../../common/crypto/crypto.js';
import { webhookSecretAt } from '../../common/crypto/sealed-columns.js';
import { appConfig } from '../../config/app-config.js';
import { ApiError } from '../../common/http/api-error.js';
import type { Page, PageQueryDto } from '../../common/http/pagination.js';
import { WebhookDelivery } from './entities/webhook-delivery.entity.js';
import { WebhookEndpoint } from './entities/webhook-endpoint.entity.js';
import type { CreateWebhookEndpointDto, UpdateWebhookEndpointDto } from './dto/webhook-endpoint.dto.js';
import { generateSecret, standardKey } from './signing.js';
import {
  checkTarget,
  ResolveTimeoutError,
  resolverWithTimeout,
  systemResolver,
  UnsafeTargetError,
} from './target-guard.js';
import { WebhookDeliveryWorker } from './webhook-delivery.worker.js';
import { EventsRepository } from '../events/events.repository.js';
import { WebhookTester } from './webhook-tester.js';
import { WebhookDeliveriesRepository, WebhookEndpointsRepository } from './webhooks.repository.js';
import {
  toDeliveryView,
  toEndpointView,
  type WebhookDeliveryView,
  type WebhookEndpointView,
} from './webhook.view.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

/** Name resolution at create/update is bounded, so a slow DNS never holds a request for long. */
const createResolver = resolverWithTimeout(systemResolver, 5000);

@Injectable()
export class WebhooksService {
  constructor(
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    @InjectDataSource() private readonly db: DataSource,
    private readonly tester: WebhookTester,
    private readonly events: EventsRepository,
    @Optional() private readonly worker?: WebhookDeliveryWorker,
  ) {}

  private async checkedUrl(raw: string): Promise<string> {
    try {
      return (await checkTarget(raw, createResolver)).url.toString();
    } catch (err) {
      if (err instanceof UnsafeTargetError) throw ApiError.validation('url', err.message);
      if (err instanceof ResolveTimeoutError) {
        throw ApiError.validation('url', 'url host did not resolve in time');
      }
      throw err;
    }
  }

  private async find(workspaceId: WorkspaceId, id: number): Promise<WebhookEndpoint> {
    const found = await this.endpoints.findOne(workspaceId, { id });
    if (!found) throw ApiError.notFound('Webhook endpoint');
    return found;
  }

  async create(
    workspaceId: WorkspaceId,
    body: CreateWebhookEndpointDto,
  ): Promise<WebhookEndpointView & { secret: string }> {
    const url = await this.checkedUrl(body.url);
    const secret = generateSecret();
    // The sealed secret is bound to the endpoint's id, which the database assigns: insert, then
    // seal under that id, in one transaction (no row without its real secret is ever visible).
    const saved = await this.db.transaction(async (manager) => {
      const row = await this.endpoints.insert(
        workspaceId,
        {
          url,
          events: [...new Set(body.events)],
          description: body.description ?? null,
          status: 'enabled',
          disabledReason: null,
          consecutiveFailures: 0,
          secretSealed: '',
        },
        manager,
      );
      row.secretSealed = seal(secret, webhookSecretAt(row.id));
      await this.endpoints.setSealedSecret(workspaceId, row.id, row.secretSealed, manager);
      return row;
    });
    return { ...toEndpointView(saved), secret };
  }

  async list(workspaceId: WorkspaceId, query: PageQueryDto): Promise<Page<WebhookEndpoint>> {
    return this.endpoints.page(workspaceId, query);
  }

  async show(workspaceId: WorkspaceId, id: number): Promise<WebhookEndpointView> {
    return toEndpointView(await this.find(workspaceId, id));
  }

  async update(
    workspaceId: WorkspaceId,
    id: number,
    body: UpdateWebhookEndpointDto,
  ): Promise<WebhookEndpointView> {
    await this.find(workspaceId, id);
    const patch: Partial<WebhookEndpoint> = {};
    if (body.url !== undefined) patch.url = await this.checkedUrl(body.url);
    if (body.events !== undefined) patch.events = [...new Set(body.events)];
    if (body.description !== undefined) patch.description = body.description;
    if (Object.keys(patch).length) await this.endpoints.applySettings(workspaceId, id, patch);
    return toEndpointView(await this.find(workspaceId, id));
  }

  async remove(workspaceId: WorkspaceId, id: number): Promise<void> {
    await this.db.transaction(async (manager) => {
      const found = await this.endpoints.findOneForUpdate(workspaceId, { id }, manager);
      if (!found) throw ApiError.notFound('Webhook endpoint');
      await this.endpoints.deleteWithDeliveries(workspaceId, id, manager);
    });
  }

  /** Re-enables a disabled endpoint and resets its failure counter; waiting deliveries resume. */
  async enable(workspaceId: WorkspaceId, id: number): Promise<WebhookEndpointView> {
    await this.find(workspaceId, id);
    await this.endpoints.enable(workspaceId, id);
    this.worker?.wake();
    return toEndpointView(await this.find(workspaceId, id));
  }

  async rotateSecret(
    workspaceId: WorkspaceId,
    id: number,
  ): Promise<WebhookEndpointView & { secret: string }> {
    await this.find(workspaceId, id);
    const secret = generateSecret();
    await this.endpoints.setSealedSecret(workspaceId, id, seal(secret, webhookSecretAt(id)));
    return { ...toEndpointView(await this.find(workspaceId, id)), secret };
  }

  async listDeliveries(
    workspaceId: WorkspaceId,
    endpointId: number,
    query: PageQueryDto,
  ): Promise<Page<WebhookDelivery>> {
    await this.find(workspaceId, endpointId);
    return this.deliveries.pageOfEndpoint(workspaceId, endpointId, query);
  }

  /**
   * Queues a delivery again with a fresh set of attempts, due now. A delivery of a disabled
   * endpoint is queued too and waits for the endpoint to be re-enabled. A delivery whose event
   * retention removed (EVENT_RETENTION_DAYS) cannot be sent again: 409, nothing queued.
   */
  async redeliver(
    workspaceId: WorkspaceId,
    endpointId: number,
    deliveryId: number,
  ): Promise<WebhookDeliveryView> {
    await this.find(workspaceId, endpointId);
    const found = await this.deliveries.findOne(workspaceId, { id: deliveryId, endpointId });
    if (!found) throw ApiError.notFound('Webhook delivery');
    if (!(await this.deliveries.requeueIfEventKept(workspaceId, endpointId, deliveryId))) {
      throw ApiError.conflict(
        `The event of this delivery is older than the event retention (${appConfig().eventRetentionDays} days) and was removed; it cannot be delivered again`,
      );
    }
    this.worker?.wake();
    const fresh = await this.deliveries.findOne(workspaceId, { id: deliveryId, endpointId });
    return toDeliveryView(fresh!);
  }

  /**
   * One signed delivery of `webhook.test` `{endpoint_id}` to the endpoint right away, whatever its
   * event families and status, through the same checks and client as normal deliveries. The attempt
   * is recorded as a finished delivery (no retries) and never counts toward disabling the endpoint.
   */
  async test(workspaceId: WorkspaceId, endpointId: number): Promise<WebhookDeliveryView> {
    const endpoint = await this.find(workspaceId, endpointId);
    const secret = unseal(endpoint.secretSealed, webhookSecretAt(endpoint.id));
    const eventId = randomUUID();
    const occurredAt = new Date().toISOString();
    const data = JSON.stringify({ endpoint_id: endpoint.id });
    const outcome = await this.tester.attempt(
      {
        url: endpoint.url,
        event_id: eventId,
        event: 'webhook.test',
        occurred_at: occurredAt,
        workspace_id: workspaceId,
        data,
      },
      { secret, key: standardKey(secret) },
    );
    const id = await this.db.transaction(async (m) => {
      await this.events.recordDispatchedTest(workspaceId, { id: eventId, data, occurredAt }, m);
      return this.deliveries.insertTestDelivery(
        workspaceId,
        { endpointId: endpoint.id, eventId, outcome, at: new Date() },
        m,
      );
    });
    const recorded = await this.deliveries.findOne(workspaceId, { id, endpointId });
    return toDeliveryView(recorded!);
  }
}
