/** Webhook endpoints and deliveries as the API shows them. */
import { WebhookDelivery } from './entities/webhook-delivery.entity.js';
import { WebhookEndpoint } from './entities/webhook-endpoint.entity.js';

export interface WebhookEndpointView {
  id: number;
  url: string;
  events: string[];
  description: string | null;
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  consecutive_failures: number;
  created_at: string;
}

export interface WebhookDeliveryView {
  id: number;
  event_id: string;
  event: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  last_error_class: string | null;
  last_duration_ms: number | null;
  last_response_excerpt: string | null;
  created_at: string;
}

export const toEndpointView = (e: WebhookEndpoint): WebhookEndpointView => ({
  id: e.id,
  url: e.url,
  events: e.events,
  description: e.description,
  status: e.status,
  disabled_reason: e.disabledReason,
  consecutive_failures: e.consecutiveFailures,
  created_at: e.createdAt.toISOString(),
});

export const toDeliveryView = (d: WebhookDelivery): WebhookDeliveryView => ({
  id: d.id,
  event_id: d.eventId,
  event: d.event,
  status: d.status,
  attempts: d.attempts,
  last_attempt_at: d.lastAttemptAt?.toISOString() ?? null,
  next_attempt_at: d.status === 'pending' ? (d.nextAttemptAt?.toISOString() ?? null) : null,
  last_status_code: d.lastStatusCode,
  last_error: d.lastError,
  last_error_class: d.lastErrorClass,
  last_duration_ms: d.lastDurationMs,
  last_response_excerpt: d.lastResponseExcerpt,
  created_at: d.createdAt.toISOString(),
});
