import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Response } from 'express';
import { logger } from '../logging/logger.js';
import { ApiError } from './api-error.js';
import { lingerOnUnreadBody } from './body-reader.js';
import { mapError } from './error-mapping.js';
import type { ServiceRequest } from './request-context.js';
import { methodNotAllowed } from './route-table.js';

/** Every failure becomes the error envelope; unexpected ones are logged with the request id only. */
@Catch()
export class EnvelopeExceptionFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const req = ctx.getRequest<ServiceRequest>();
    const res = ctx.getResponse<Response>();
    sendError(exception, req, res);
  }
}

export function sendError(exception: unknown, req: ServiceRequest, res: Response): void {
  const requestId = req.id ?? 'unknown';
  let mapped = mapError(exception, requestId);
  // A 404 that no handler raised itself (Nest's not-found handler, or a route of another method).
  if (mapped.status === 404 && !(exception instanceof ApiError)) {
    const allowed = methodNotAllowed(req);
    if (allowed) {
      mapped = {
        status: 405,
        body: { error: { type: 'method_not_allowed', message: `Method ${req.method} is not allowed here` } },
        headers: { Allow: allowed.join(', ') },
        unexpected: false,
      };
    }
  }
  if (mapped.unexpected) {
    logger.error(
      {
        requestId,
        err:
          exception instanceof Error
            ? { message: exception.message, stack: exception.stack }
            : String(exception),
      },
      'unhandled error',
    );
  }
  if (res.headersSent) return;
  lingerOnUnreadBody(req, res);
  for (const [k, v] of Object.entries(mapped.headers)) res.setHeader(k, v);
  res.status(mapped.status).type('application/json').send(JSON.stringify(mapped.body));
}
