/**
 * Builds the HTTP application: Express 5, helmet, request ids, request logs,
 * /api/v1 prefix, OpenAPI and the error envelope on every failure path. Used by main.ts and tests.
 */
import { NotFoundException, RequestMethod, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import express, { type NextFunction, type Request, type Response } from 'express';
import helmet from 'helmet';
import { ServiceExpressAdapter } from './common/http/express-adapter.js';
import { AppModule } from './app.module.js';
import { hasBody } from './common/http/body-reader.js';
import { sendError } from './common/http/exception.filter.js';
import { bindIdempotency } from './common/idempotency/idempotency.interceptor.js';
import { requestIdMiddleware, type ServiceRequest } from './common/http/request-context.js';
import { registerRoutes, routesOfExpressApp } from './common/http/route-table.js';
import { accessLogger, PinoNestLogger } from './common/logging/logger.js';
import { Draining } from './common/lifecycle/draining.js';
import { observeRequest } from './common/metrics/http-metrics.js';
import { appConfig } from './config/app-config.js';
import { ownOrigins, setupOpenApi } from './openapi.js';

export const API_PREFIX = 'api/v1';

/** The unsubscribe form (public, outside /api/v1) posts one urlencoded field; bodies are tiny. */
const UNSUBSCRIBE_FORM_LIMIT = '16kb';

/**
 * The path as logged: an unsubscribe link's path is its token (a bearer credential for one
 * address), so `/u/{token}` is written as `/u/:token`.
 */
export function loggedPath(path: string): string {
  return path.startsWith('/u/') ? '/u/:token' : path;
}

/** One listener per request: the metrics observation, and the access log line unless ACCESS_LOG=false. */
function onFinish(req: Request, res: Response, accessLog: boolean): void {
  res.on('finish', () => {
    const sr = req as ServiceRequest;
    const ms = Number(process.hrtime.bigint() - sr.startedAt) / 1e6;
    observeRequest(req, res, ms / 1000);
    if (!accessLog) return;
    accessLogger.info(
      {
        requestId: sr.id,
        method: req.method,
        path: loggedPath(req.path),
        status: res.statusCode,
        ms: Math.round(ms * 10) / 10,
        key: sr.principal?.prefix,
      },
      'request',
    );
  });
}

/**
 * The only body read in middleware: the public unsubscribe form (`/u/{token}`, no credential to check,
 * 16 KB, inflated bytes counted by body-parser). /api/v1 bodies are read after authentication by
 * the ApiKeyGuard (common/http/request-body.ts); /api/v1/inbound reads its own after its secret.
 * Requests without a body (most GETs) skip this in one test.
 */
function unsubscribeFormReader(): (req: Request, res: Response, next: NextFunction) => void {
  const form = express.urlencoded({ extended: false, limit: UNSUBSCRIBE_FORM_LIMIT });
  return (req, res, next) => (hasBody(req) && req.url.startsWith('/u/') ? form(req, res, next) : next());
}

export async function createHttpApp(): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule, new ServiceExpressAdapter(), {
    bodyParser: false,
    logger: new PinoNestLogger(),
    abortOnError: false,
  });
  configureHttpApp(app);
  bindIdempotency(app);
  await app.init();
  registerRoutes(routesOfExpressApp(app.getHttpAdapter().getInstance()));
  // Last in the chain: a path nothing answered, inside /api/v1 or outside it (/nope), gets the error
  // envelope (404, or 405 with Allow for a known path) instead of Express's HTML page. Nest's own
  // not-found handler is mounted under the global prefix only.
  app.use((req: Request, res: Response) => sendError(new NotFoundException(), req as ServiceRequest, res));
  return app;
}

/** The application's drain flag (an app assembled without LifecycleModule, in a test, never drains). */
function drainingOf(app: NestExpressApplication): Draining {
  try {
    return app.get(Draining, { strict: false });
  } catch {
    return new Draining();
  }
}

const CORS_HEADERS = 'Authorization, Content-Type, Idempotency-Key, X-Request-Id';

/**
 * Cross-origin calls from the service's own origins only (PUBLIC_URL's and the loopback names of
 * its port): Swagger UI opened on http://127.0.0.1:PORT/docs calling http://localhost:PORT works,
 * and no other site's page can read an answer. A preflight from an own origin answers 204; any
 * other preflight falls through to the usual 405.
 */
function ownOriginsCors(origins: Set<string>): (req: Request, res: Response, next: NextFunction) => void {
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (typeof origin !== 'string' || !origins.has(origin)) return next();
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Vary', 'Origin');
    res.setHeader(
      'Access-Control-Expose-Headers',
      'X-Request-Id, RateLimit, RateLimit-Policy, Retry-After, Location',
    );
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) {
      res.setHeader('Access-Control-Allow-Methods', 'GET, POST, PUT, PATCH, DELETE');
      res.setHeader('Access-Control-Allow-Headers', CORS_HEADERS);
      res.setHeader('Access-Control-Max-Age', '600');
      res.status(204).end();
      return;
    }
    next();
  };
}

export function configureHttpApp(app: NestExpressApplication): void {
  const config = appConfig();
  app.set('trust proxy', config.trustProxy.length ? config.trustProxy : false);
  app.disable('x-powered-by');
  app.set('etag', false);
  const accessLog = process.env.ACCESS_LOG !== 'false';
  const draining = drainingOf(app);
  app.use((req: Request, res: Response, next: NextFunction) => {
    onFinish(req, res, accessLog);
    // While shutting down, each answer closes its connection, so keep-alive clients reconnect to
    // another instance and the server's close() is not held up by idle sockets.
    if (draining.active) res.setHeader('Connection', 'close');
    requestIdMiddleware(req, res, next);
  });
  app.use(helmet({ contentSecurityPolicy: false }));
  app.use(ownOriginsCors(ownOrigins(config.publicUrl, config.port)));
  app.use(unsubscribeFormReader());
  app.use((err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (!err) return next();
    sendError(err, req as ServiceRequest, res);
  });
  app.setGlobalPrefix(API_PREFIX, {
    exclude: [
      { path: 'health/live', method: RequestMethod.GET },
      { path: 'health/ready', method: RequestMethod.GET },
      { path: 'metrics', method: RequestMethod.GET },
      { path: 'u/:token', method: RequestMethod.ALL },
      { path: 'oauth/:provider/callback', method: RequestMethod.GET },
    ],
  });
  // No enableShutdownHooks(): main.ts owns SIGTERM/SIGINT (close the app, stop embedded services,
  // exit 0). Nest's hook would re-raise the signal after closing and kill the process mid-shutdown.
  setupOpenApi(app);
}

export type { INestApplication };
