/**
 * Builds the HTTP application: Express 5 with body limits, helmet, request ids, request logs,
 * /api/v1 prefix, OpenAPI and the error envelope on every failure path. Used by main.ts and tests.
 */
import { RequestMethod, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import express, { type NextFunction, type Request, type Response } from 'express';
import helmet from 'helmet';
import { ServiceExpressAdapter } from './common/http/express-adapter.js';
import { AppModule } from './app.module.js';
import { sendError } from './common/http/exception.filter.js';
import { bindIdempotency } from './common/idempotency/idempotency.interceptor.js';
import { requestIdMiddleware, type ServiceRequest } from './common/http/request-context.js';
import { registerRoutes, routesOfExpressApp } from './common/http/route-table.js';
import { accessLogger, PinoNestLogger } from './common/logging/logger.js';
import { appConfig } from './config/app-config.js';
import { setupOpenApi } from './openapi.js';

export const API_PREFIX = 'api/v1';
const JSON_LIMIT = '1mb';

function requireJsonBody(req: Request, _res: Response, next: NextFunction): void {
  const hasBody =
    Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (
    hasBody &&
    ['POST', 'PATCH', 'PUT'].includes(req.method) &&
    req.path.startsWith('/api/v1/') &&
    !req.path.startsWith('/api/v1/inbound/') &&
    !req.is('application/json') &&
    !req.is('application/*+json')
  ) {
    const err = Object.assign(new Error('Content-Type must be application/json'), {
      status: 400,
      type: 'content.type',
    });
    next(err);
    return;
  }
  next();
}

/** Deeper JSON than any route accepts; refused before recursive code (fingerprints, validation) sees it. */
const MAX_JSON_DEPTH = 32;

function jsonDepthExceeds(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v as Record<string, unknown>)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

function limitJsonDepth(req: Request, _res: Response, next: NextFunction): void {
  if (req.body !== undefined && jsonDepthExceeds(req.body, MAX_JSON_DEPTH)) {
    next(Object.assign(new Error('JSON nested too deeply'), { status: 400, type: 'entity.too.deep' }));
    return;
  }
  next();
}

function logOnFinish(req: Request, res: Response): void {
  res.on('finish', () => {
    const sr = req as ServiceRequest;
    const ms = Number(process.hrtime.bigint() - sr.startedAt) / 1e6;
    accessLogger.info(
      {
        requestId: sr.id,
        method: req.method,
        path: req.path,
        status: res.statusCode,
        ms: Math.round(ms * 10) / 10,
        key: sr.principal?.prefix,
      },
      'request',
    );
  });
}

/** body-parser's own test (type-is `hasBody`): a request without either header has no body to read. */
const mayHaveBody = (req: Request): boolean =>
  req.headers['transfer-encoding'] !== undefined || req.headers['content-length'] !== undefined;

/**
 * The body readers and checks, in order, as one middleware that requests without a body (most GETs)
 * skip in one step instead of passing five router layers that each find nothing to do.
 */
function bodyReaders(): (req: Request, res: Response, next: NextFunction) => void {
  const readers = express.Router();
  readers.use('/api/v1/contacts/import', (_req, _res, next) => next('router')); // read after auth (ImportBodyGuard)
  readers.use(requireJsonBody);
  readers.use(express.json({ limit: JSON_LIMIT, type: ['application/json', 'application/*+json'] }));
  readers.use(limitJsonDepth);
  readers.use('/u', express.urlencoded({ extended: false, limit: '16kb' }));
  return (req, res, next) => (mayHaveBody(req) ? readers(req, res, next) : next());
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
  return app;
}

export function configureHttpApp(app: NestExpressApplication): void {
  const config = appConfig();
  app.set('trust proxy', config.trustProxy.length ? config.trustProxy : false);
  app.disable('x-powered-by');
  app.set('etag', false);
  const accessLog = process.env.ACCESS_LOG !== 'false';
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (accessLog) logOnFinish(req, res);
    requestIdMiddleware(req, res, next);
  });
  app.use(helmet({ contentSecurityPolicy: false }));
  app.use(bodyReaders());
  app.use((err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (!err) return next();
    sendError(err, req as ServiceRequest, res);
  });
  app.setGlobalPrefix(API_PREFIX, {
    exclude: [
      { path: 'health/live', method: RequestMethod.GET },
      { path: 'health/ready', method: RequestMethod.GET },
      { path: 'u/:token', method: RequestMethod.ALL },
    ],
  });
  // No enableShutdownHooks(): main.ts owns SIGTERM/SIGINT (close the app, stop embedded services,
  // exit 0). Nest's hook would re-raise the signal after closing and kill the process mid-shutdown.
  setupOpenApi(app);
}

export type { INestApplication };
