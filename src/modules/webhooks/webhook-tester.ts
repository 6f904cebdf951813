/**
 * `POST /webhook-endpoints/{id}/test`: one signed delivery of `webhook.test` right away, in the
 * request, through the same attempt as normal deliveries (webhook-attempt.ts). Available in every
 * role (an API-only process has no delivery worker), with its own small connection pool.
 */
import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { resolverWithTimeout, systemResolver, type Resolver } from './target-guard.js';
import { attemptDelivery, type AttemptInput } from './webhook-attempt.js';
import { WebhookHttpClient, type AttemptOutcome } from './webhook-http.js';
import { webhookSettings } from './webhook-settings.js';

@Injectable()
export class WebhookTester implements OnModuleDestroy {
  private client: { http: WebhookHttpClient; resolver: Resolver } | null = null;

  attempt(row: AttemptInput, signing: { secret: string; key: Buffer }): Promise<AttemptOutcome> {
    if (!this.client) {
      const { timeoutMs } = webhookSettings();
      this.client = {
        http: new WebhookHttpClient(timeoutMs, 4),
        resolver: resolverWithTimeout(systemResolver, timeoutMs),
      };
    }
    return attemptDelivery(row, signing, this.client.http, this.client.resolver);
  }

  async onModuleDestroy(): Promise<void> {
    await this.client?.http.close();
    this.client = null;
  }
}
