/** Turns any thrown value into the error envelope. Shared by the exception filter and the idempotency store. */
import { HttpException } from '@nestjs/common';
import { ApiError, type ErrorBody, type ErrorType } from './api-error.js';

export interface MappedError {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
  unexpected: boolean;
}

const TYPE_BY_STATUS: Record<number, ErrorType> = {
  400: 'invalid_request',
  401: 'authentication_failed',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  422: 'validation_failed',
  429: 'rate_limited',
};

export function mapError(exception: unknown, requestId: string): MappedError {
  if (exception instanceof ApiError) {
    return {
      status: exception.getStatus(),
      body: exception.body,
      headers: exception.headers,
      unexpected: false,
    };
  }
  if (isDependencyUnavailable(exception)) {
    return {
      status: 503,
      body: {
        error: {
          type: 'service_unavailable',
          message: 'The service is temporarily unavailable; retry later',
        },
      },
      headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
      unexpected: false,
    };
  }
  const library = libraryError(exception);
  if (library) return { ...library, headers: {}, unexpected: false };
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const type = TYPE_BY_STATUS[status];
    if (type) {
      const message =
        status === 404
          ? 'Not found'
          : status === 413
            ? 'Request body is too large'
            : safeMessage(exception, status);
      return { status, body: { error: { type, message } }, headers: {}, unexpected: false };
    }
  }
  return {
    status: 500,
    body: { error: { type: 'internal_error', message: `Internal error; request id ${requestId}` } },
    headers: {},
    unexpected: true,
  };
}

/** What a client is told to wait after a 503 while the database is unreachable. */
export const RETRY_AFTER_SECONDS = 5;

/** Socket-level failures to reach a dependency (Node's system error codes). */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'ECONNABORTED',
]);

/**
 * PostgreSQL SQLSTATEs that say "the server cannot serve you now", not "your query is wrong":
 * class 08 (connection exception), 57P01-57P03 (admin/crash shutdown, cannot connect now), 53300
 * (too many connections) and 53 (insufficient resources) in general.
 */
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[123]|53...)$/;

/** Messages of pg and pg-pool for a connection lost or never made (they carry no code). */
const UNAVAILABLE_MESSAGE =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection refused)/i;

/**
 * A connection-level failure of a dependency (PostgreSQL unreachable, restarting or full): the
 * request may succeed later, so it is 503 service_unavailable with Retry-After, never 401 or 500.
 * Looks through TypeORM's QueryFailedError (`driverError`), `cause` chains and AggregateErrors
 * (Node's happy-eyeballs connect failures), a few levels deep.
 */
export function isDependencyUnavailable(exception: unknown, depth = 0): boolean {
  if (depth > 4 || typeof exception !== 'object' || exception === null) return false;
  if (exception instanceof HttpException) return false;
  const e = exception as {
    code?: unknown;
    message?: unknown;
    driverError?: unknown;
    cause?: unknown;
    errors?: unknown;
    status?: unknown;
  };
  // http-errors of the body readers (an aborted upload: ECONNABORTED) are the client's doing.
  if (typeof e.status === 'number') return false;
  if (typeof e.code === 'string' && (NETWORK_CODES.has(e.code) || UNAVAILABLE_SQLSTATE.test(e.code))) {
    return true;
  }
  if (typeof e.message === 'string' && UNAVAILABLE_MESSAGE.test(e.message)) return true;
  if (isDependencyUnavailable(e.driverError, depth + 1) || isDependencyUnavailable(e.cause, depth + 1)) {
    return true;
  }
  return Array.isArray(e.errors) && e.errors.some((inner) => isDependencyUnavailable(inner, depth + 1));
}

function safeMessage(exception: HttpException, status: number): string {
  const response = exception.getResponse();
  if (typeof response === 'object' && response && 'message' in response) {
    const message = (response as { message: unknown }).message;
    if (typeof message === 'string' && message.length < 300) return message;
  }
  return status === 400 ? 'Bad request' : exception.message.slice(0, 300);
}

const BODY_MESSAGES: Record<string, string> = {
  'entity.parse.failed': 'Request body is not valid JSON',
  'encoding.unsupported': 'Unsupported Content-Encoding',
  'charset.unsupported': 'Unsupported charset; send UTF-8 JSON',
  'request.aborted': 'Request body was not received completely',
  'request.size.invalid': 'Request body length does not match Content-Length',
  'stream.encoding.set': 'Malformed request',
  'entity.too.deep': `Request body is nested too deeply`,
};

/**
 * Errors of body-parser, zlib and the router (http-errors with a `status`, possibly wrapped by Nest's
 * adapter in a BadRequestException with `cause`), mapped to the contract's types with fixed messages
 * that never echo the input.
 */
function libraryError(exception: unknown): { status: number; body: ErrorBody } | undefined {
  const raw =
    exception instanceof HttpException && (exception as { cause?: unknown }).cause !== undefined
      ? (exception as { cause?: unknown }).cause
      : exception;
  if (typeof raw !== 'object' || raw === null || exception instanceof ApiError) return undefined;
  const e = raw as { status?: unknown; statusCode?: unknown; type?: unknown; message?: unknown };
  const status =
    typeof e.status === 'number' ? e.status : typeof e.statusCode === 'number' ? e.statusCode : 0;
  const type = typeof e.type === 'string' ? e.type : '';
  if (type === 'entity.too.large' || (status === 413 && !(exception instanceof HttpException))) {
    return {
      status: 413,
      body: { error: { type: 'payload_too_large', message: 'Request body is too large' } },
    };
  }
  // A path whose percent-encoding does not decode names no resource.
  if (raw instanceof URIError && status === 400) {
    return { status: 404, body: { error: { type: 'not_found', message: 'Not found' } } };
  }
  if (exception instanceof HttpException && raw === exception) return undefined;
  if (BODY_MESSAGES[type] || raw instanceof SyntaxError) {
    const message = BODY_MESSAGES[type] ?? 'Request body is not valid JSON';
    return { status: 400, body: { error: { type: 'invalid_request', message } } };
  }
  // zlib failures while inflating a gzip/deflate/br body carry status 400 and no type; 415 is an
  // unsupported encoding or media type: both are malformed requests under the contract.
  if ((status === 400 || status === 415) && !(exception instanceof HttpException && raw === exception)) {
    return { status: 400, body: { error: { type: 'invalid_request', message: 'Malformed request body' } } };
  }
  return undefined;
}
