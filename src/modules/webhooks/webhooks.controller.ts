import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req } from '@nestjs/common';
import { ApiNoContentResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Tenant, WorkspaceAuth } from '../../common/auth/auth.decorator.js';
import type { WorkspaceTenant } from '../../common/auth/principal.js';
import { ApiCollectionResponse, ApiDataResponse, ApiErrorResponses } from '../../common/http/envelope.dto.js';
import { IntIdPipe } from '../../common/http/id-params.js';
import { collection, PageQueryDto, type Collection } from '../../common/http/pagination.js';
import {
  CreateWebhookEndpointDto,
  UpdateWebhookEndpointDto,
  WebhookDeliveryResponseDto,
  WebhookEndpointResponseDto,
  WebhookEndpointWithSecretDto,
} from './dto/webhook-endpoint.dto.js';
import { WebhooksService } from './webhooks.service.js';
import {
  toDeliveryView,
  toEndpointView,
  type WebhookDeliveryView,
  type WebhookEndpointView,
} from './webhook.view.js';

@ApiTags('webhooks')
@Controller('webhook-endpoints')
@WorkspaceAuth('webhooks:manage')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    operationId: 'v1.webhook_endpoints.store',
    summary: 'Register a webhook endpoint; the signing secret is shown once, in this answer',
  })
  @ApiDataResponse(WebhookEndpointWithSecretDto, 201, 'Created')
  @ApiErrorResponses(400, 422)
  async store(@Tenant() t: WorkspaceTenant, @Body() body: CreateWebhookEndpointDto) {
    return { data: await this.webhooks.create(t.workspaceId, body) };
  }

  @Get()
  @ApiOperation({ operationId: 'v1.webhook_endpoints.index', summary: 'Webhook endpoints, newest first' })
  @ApiCollectionResponse(WebhookEndpointResponseDto)
  async index(
    @Tenant() t: WorkspaceTenant,
    @Query() query: PageQueryDto,
    @Req() req: Request,
  ): Promise<Collection<WebhookEndpointView>> {
    return collection(await this.webhooks.list(t.workspaceId, query), toEndpointView, req);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'v1.webhook_endpoints.show', summary: 'One webhook endpoint' })
  @ApiDataResponse(WebhookEndpointResponseDto)
  @ApiErrorResponses(404)
  async show(@Tenant() t: WorkspaceTenant, @Param('id', IntIdPipe) id: number) {
    return { data: await this.webhooks.show(t.workspaceId, id) };
  }

  @Patch(':id')
  @ApiOperation({
    operationId: 'v1.webhook_endpoints.update',
    summary: 'Change the URL, event families or description of an endpoint',
  })
  @ApiDataResponse(WebhookEndpointResponseDto)
  @ApiErrorResponses(400, 404, 422)
  async update(
    @Tenant() t: WorkspaceTenant,
    @Param('id', IntIdPipe) id: number,
    @Body() body: UpdateWebhookEndpointDto,
  ) {
    return { data: await this.webhooks.update(t.workspaceId, id, body) };
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'v1.webhook_endpoints.destroy',
    summary: 'Delete an endpoint and its delivery log',
  })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrorResponses(404)
  async destroy(@Tenant() t: WorkspaceTenant, @Param('id', IntIdPipe) id: number): Promise<void> {
    await this.webhooks.remove(t.workspaceId, id);
  }

  @Post(':id/enable')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'v1.webhook_endpoints.enable',
    summary: 'Re-enable an endpoint and reset its failure counter; waiting deliveries resume',
  })
  @ApiDataResponse(WebhookEndpointResponseDto)
  @ApiErrorResponses(404)
  async enable(@Tenant() t: WorkspaceTenant, @Param('id', IntIdPipe) id: number) {
    return { data: await this.webhooks.enable(t.workspaceId, id) };
  }

  @Post(':id/rotate-secret')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'v1.webhook_endpoints.rotate_secret',
    summary: 'Replace the signing secret; the new one is shown once, in this answer',
  })
  @ApiDataResponse(WebhookEndpointWithSecretDto)
  @ApiErrorResponses(404)
  async rotateSecret(@Tenant() t: WorkspaceTenant, @Param('id', IntIdPipe) id: number) {
    return { data: await this.webhooks.rotateSecret(t.workspaceId, id) };
  }

  @Post(':id/test')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'v1.webhook_endpoints.test',
    summary: 'Send one signed `webhook.test` delivery to the endpoint now and answer with its outcome',
    description:
      "The delivery carries event `webhook.test` with data `{endpoint_id}`, signed like every delivery (`X-Service-Signature` and Standard Webhooks headers) and sent through the same target checks (public addresses only, no redirects, 10 s, 64 KiB). It is made whatever the endpoint's event families and status, is attempted once (no retries), and is listed with the endpoint's deliveries. It never changes `consecutive_failures` and never disables or re-enables the endpoint. The answer is 200 whether the receiver accepted it or not: read `status` (`succeeded` or `failed`), `last_status_code` and `last_error`.",
  })
  @ApiDataResponse(WebhookDeliveryResponseDto, 200, 'The attempt was made; its outcome is in the delivery', {
    id: 512,
    event_id: '0b6f1c8e-2a47-4c1e-9d7a-3f5e8b2c6d10',
    event: 'webhook.test',
    status: 'failed',
    attempts: 1,
    last_attempt_at: '2026-11-24T10:15:02.431Z',
    next_attempt_at: null,
    last_status_code: 500,
    last_error: 'HTTP 500',
    last_error_class: 'http_status',
    last_duration_ms: 38,
    last_response_excerpt: 'internal error',
    created_at: '2026-11-24T10:15:02.440Z',
  })
  @ApiErrorResponses(404)
  async test(@Tenant() t: WorkspaceTenant, @Param('id', IntIdPipe) id: number) {
    return { data: await this.webhooks.test(t.workspaceId, id) };
  }

  @Get(':id/deliveries')
  @ApiOperation({
    operationId: 'v1.webhook_endpoints.deliveries.index',
    summary: 'Deliveries to one endpoint, newest first',
  })
  @ApiCollectionResponse(WebhookDeliveryResponseDto)
  @ApiErrorResponses(404)
  async deliveries(
    @Tenant() t: WorkspaceTenant,
    @Param('id', IntIdPipe) id: number,
    @Query() query: PageQueryDto,
    @Req() req: Request,
  ): Promise<Collection<WebhookDeliveryView>> {
    return collection(await this.webhooks.listDeliveries(t.workspaceId, id, query), toDeliveryView, req);
  }

  @Post(':id/deliveries/:delivery_id/redeliver')
  @HttpCode(202)
  @ApiOperation({
    operationId: 'v1.webhook_endpoints.deliveries.redeliver',
    summary: 'Queue a delivery again with a fresh set of attempts',
    description:
      'A delivery whose event was removed by retention (older than the event retention period) cannot be sent again: 409 `conflict`.',
  })
  @ApiDataResponse(WebhookDeliveryResponseDto, 202, 'Accepted')
  @ApiErrorResponses(404, 409)
  async redeliver(
    @Tenant() t: WorkspaceTenant,
    @Param('id', IntIdPipe) id: number,
    @Param('delivery_id', IntIdPipe) deliveryId: number,
  ) {
    return { data: await this.webhooks.redeliver(t.workspaceId, id, deliveryId) };
  }
}
