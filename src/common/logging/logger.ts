/**
 * Logs with pino: JSON lines (one object per line) when stdout is not a terminal, which is how a
 * service runs in production (containers, systemd, a log shipper); readable coloured lines
 * (pino-pretty, written synchronously in this thread) when stdout is a terminal. LOG_FORMAT=json or
 * pretty overrides the choice; LOG_LEVEL sets the level (validated by app-config).
 * Authorization, cookies and secrets are redacted, never logged.
 */
import type { LoggerService } from '@nestjs/common';
import { pino, type DestinationStream, type Logger } from 'pino';
import pinoPretty from 'pino-pretty';

const LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);
const requested = (process.env.LOG_LEVEL || 'info').trim().toLowerCase();
/** An unknown level falls back to info here; app-config refuses it at start-up with a clear message. */
const LEVEL = LEVELS.has(requested) ? requested : 'info';
const BASE = { service: 'outreach' };

/** `pretty` when LOG_FORMAT says so, or when it is unset and stdout is a terminal. */
export function logFormat(
  env: NodeJS.ProcessEnv = process.env,
  tty = process.stdout.isTTY === true,
): 'json' | 'pretty' {
  if (env.LOG_FORMAT === 'json' || env.LOG_FORMAT === 'pretty') return env.LOG_FORMAT;
  return tty ? 'pretty' : 'json';
}

/** One destination for both loggers: stdout as JSON lines, or one pretty stream. */
const destination: DestinationStream | undefined =
  logFormat() === 'pretty'
    ? pinoPretty({
        colorize: process.stdout.isTTY === true,
        sync: true,
        singleLine: true,
        translateTime: 'SYS:HH:MM:ss.l',
        ignore: 'pid,hostname,service',
      })
    : undefined;

const make = (options: pino.LoggerOptions): Logger =>
  destination ? pino(options, destination) : pino(options);

export const logger: Logger = make({
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
export const accessLogger: Logger = make({ level: LEVEL, base: BASE });

/** Nest's logger interface on top of pino. */
/**
 * Nest's own start-up chatter (one line per module, controller and route: ~130 lines) is debug, not
 * info: at the default level the start-up log stays a handful of lines and names the address once.
 * `LOG_LEVEL=debug` shows the route table again.
 */
const BOOTSTRAP_CONTEXTS = new Set([
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestFactory',
  'NestApplication',
]);

export class PinoNestLogger implements LoggerService {
  log(message: unknown, context?: string): void {
    if (context && BOOTSTRAP_CONTEXTS.has(context)) {
      this.debug(message, context);
      return;
    }
    // Nest heads each controller's routes with the global prefix joined to the controller's path,
    // also when every route of it is excluded from the prefix (`HealthController {/api/v1/health}`
    // for /health/live): the heading keeps the name only; each `Mapped {path, method}` line that
    // follows has the real path.
    const text =
      context === 'RoutesResolver' ? String(message).replace(/ \{[^}]*\}:$/, ':') : String(message);
    logger.info({ context }, text);
  }
  error(message: unknown, trace?: string, context?: string): void {
    logger.error({ context, trace }, String(message));
  }
  warn(message: unknown, context?: string): void {
    logger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string): void {
    const text =
      context === 'RoutesResolver' ? String(message).replace(/ \{[^}]*\}:$/, ':') : String(message);
    logger.debug({ context }, text);
  }
  verbose(message: unknown, context?: string): void {
    logger.trace({ context }, String(message));
  }
}
