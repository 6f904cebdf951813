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
  const status = statusOfLibraryError(exception);
  if (status === 413) {
    return {
      status,
      body: { error: { type: 'payload_too_large', message: 'Request body is too large' } },
      headers: {},
      unexpected: false,
    };
  }
  if (status === 400) {
    return {
      status,
      body: { error: { type: 'invalid_request', message: 'Request body is not valid JSON' } },
      headers: {},
      unexpected: false,
    };
  }
  return {
    status: 500,
    body: { error: { type: 'internal_error', message: `Internal error; request id ${requestId}` } },
    headers: {},
    unexpected: true,
  };
}

function safeMessage(exception: HttpException, status: number): string {
  const response = exception.getResponse();
  if (typeof response === 'object' && response && 'message' in response) {
    const message = (response as { message: unknown }).message;
    if (typeof message === 'string' && message.length < 300) return message;
  }
  return status === 400 ? 'Bad request' : exception.message.slice(0, 300);
}

/** body-parser and friends throw errors with `status`/`type` fields. */
function statusOfLibraryError(exception: unknown): number | undefined {
  if (typeof exception !== 'object' || exception === null) return undefined;
  const e = exception as { status?: unknown; type?: unknown };
  if (e.type === 'entity.too.large') return 413;
  if (
    e.type === 'entity.parse.failed' ||
    e.type === 'encoding.unsupported' ||
    e.type === 'charset.unsupported'
  ) {
    return 400;
  }
  if (e.status === 400 && typeof e.type === 'string') return 400;
  return undefined;
}
