/** The API's error types (docs/api.md), one class that carries status, type, message and field. */
import { HttpException } from '@nestjs/common';

export const ERROR_TYPES = [
  'invalid_request',
  'authentication_failed',
  'forbidden',
  'plan_limit_exceeded',
  'not_found',
  'method_not_allowed',
  'conflict',
  'idempotency_key_in_use',
  'payload_too_large',
  'validation_failed',
  'idempotency_key_reused',
  'rate_limited',
  'internal_error',
  'service_unavailable',
] as const;

export type ErrorType = (typeof ERROR_TYPES)[number];

export interface ErrorBody {
  error: { type: ErrorType; message: string; field?: string };
}

export class ApiError extends HttpException {
  constructor(
    status: number,
    readonly type: ErrorType,
    message: string,
    readonly field?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(
      { error: { type, message, ...(field !== undefined ? { field } : {}) } } satisfies ErrorBody,
      status,
    );
  }

  get body(): ErrorBody {
    return this.getResponse() as ErrorBody;
  }

  /**
   * One body for every "not found": a foreign-tenant id must be indistinguishable from a missing or
   * malformed one, so the message never names what was looked for. `_what` documents the call site.
   */
  static notFound(_what?: string): ApiError {
    return new ApiError(404, 'not_found', 'Resource not found');
  }

  static validation(field: string, message: string): ApiError {
    return new ApiError(422, 'validation_failed', message, field);
  }

  static conflict(message: string): ApiError {
    return new ApiError(409, 'conflict', message);
  }

  static unauthenticated(message = 'A valid API key is required'): ApiError {
    return new ApiError(401, 'authentication_failed', message);
  }

  static forbidden(message: string): ApiError {
    return new ApiError(403, 'forbidden', message);
  }
}
