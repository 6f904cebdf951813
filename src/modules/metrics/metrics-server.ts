/**
 * The metrics listener of processes without the API (APP_ROLE=worker): a worker has no HTTP server,
 * and its counters (sends, webhook attempts, import rows, IMAP polls) exist only in its own memory,
 * so it serves them itself when METRICS_PORT is set. Two routes: GET /metrics (same text and the
 * same METRICS_TOKEN rule as the API's) and GET /health/live (for a container healthcheck); anything
 * else is a 404 in the error envelope. Plain node:http: no Express, no guard, no body is ever read.
 * A process with the API may set METRICS_PORT too, to keep scrapes off the public port.
 */
import { Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { logger } from '../../common/logging/logger.js';
import { appConfig } from '../../config/app-config.js';
import { MetricsService } from './metrics.service.js';
import { metricsUnauthorized } from './metrics.controller.js';

const JSON_TYPE = 'application/json; charset=utf-8';

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'Content-Type': JSON_TYPE, 'Cache-Control': 'no-store', ...headers });
  res.end(JSON.stringify(body));
}

@Injectable()
export class MetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private server: Server | undefined;

  constructor(private readonly metrics: MetricsService) {}

  /** The port it listens on (0 when it does not). */
  get port(): number {
    return (this.server?.address() as AddressInfo | null)?.port ?? 0;
  }

  async onApplicationBootstrap(): Promise<void> {
    const { metricsPort } = appConfig();
    if (!metricsPort) return;
    const server = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        sendJson(
          res,
          405,
          { error: { type: 'method_not_allowed', message: `Method ${req.method} is not allowed here` } },
          { Allow: 'GET, HEAD' },
        );
        return;
      }
      if (path === '/health/live') return sendJson(res, 200, { status: 'ok' });
      if (path !== '/metrics') {
        return sendJson(res, 404, { error: { type: 'not_found', message: 'Resource not found' } });
      }
      if (!this.metrics.authorized(req.headers.authorization)) {
        // The same 401 as the API role's GET /metrics.
        const refused = metricsUnauthorized();
        return sendJson(res, refused.getStatus(), refused.body, refused.headers);
      }
      this.metrics.render().then(
        (text) => {
          res.writeHead(200, { 'Content-Type': this.metrics.contentType, 'Cache-Control': 'no-store' });
          res.end(text);
        },
        (err: unknown) => {
          logger.error({ err: err instanceof Error ? err.message : String(err) }, 'metrics: render failed');
          sendJson(res, 500, { error: { type: 'internal_error', message: 'Internal error' } });
        },
      );
    });
    server.requestTimeout = 10_000;
    server.headersTimeout = 5_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(metricsPort, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    logger.info({ port: this.port }, 'metrics listening');
  }

  /** Last of all: the final scrapes of a draining process still succeed. */
  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
}
