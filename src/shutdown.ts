/**
 * Graceful shutdown of one process (main.ts calls it on SIGTERM/SIGINT), in this order:
 *
 * 1. Draining begins: readiness answers 503, answers carry `Connection: close`, the send engine and
 *    the webhook worker start no new unit and give back what they claimed, the import runner stops
 *    after its chunk and re-enqueues the rest.
 * 2. The HTTP server (API role) stops accepting connections; idle keep-alive ones close; requests in
 *    flight run to their end.
 * 3. The worker loops stop once their running pass has ended (sends begun in SMTP are finished and
 *    finalised; the rest of a claim is released, due at once for another worker).
 * 4. Nest closes (Bull queues, Redis, the database pool).
 *
 * All of it within `timeoutMs` (SHUTDOWN_TIMEOUT_SECONDS, default 25 s, under the 30 s most
 * orchestrators wait before SIGKILL): past it the process exits with code 1, and whatever was still
 * running is what a crash leaves (docs/operations.md says what that means for each kind of work).
 */
import type { INestApplicationContext } from '@nestjs/common';
import type { Server } from 'node:http';
import { Draining } from './common/lifecycle/draining.js';
import { logger } from './common/logging/logger.js';
import { runsWorkers } from './config/app-config.js';
import { WorkerRunner } from './worker/worker.module.js';

/** Drains and closes `app`; resolves to the exit code (0, or 1 after an error or the timeout). */
export async function drainThenClose(
  app: INestApplicationContext,
  signal: NodeJS.Signals,
  timeoutMs: number,
): Promise<number> {
  const started = Date.now();
  logger.info({ signal, timeoutMs }, 'shutting down: draining');
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<number>((resolve) => {
    timer = setTimeout(() => {
      logger.error({ ms: Date.now() - started }, 'shutdown timed out; exiting with work still running');
      resolve(1);
    }, timeoutMs);
  });
  const work = (async (): Promise<number> => {
    app.get(Draining, { strict: false }).begin();
    const server = (app as { getHttpServer?: () => Server }).getHttpServer?.();
    const closed = server
      ? new Promise<void>((resolve) => {
          // A keep-alive connection whose request was in flight becomes idle when its answer is
          // written: closed at the next sweep, so close() does not wait for the keep-alive timeout.
          const sweep = setInterval(() => server.closeIdleConnections(), 100);
          server.close(() => {
            clearInterval(sweep);
            resolve();
          });
          server.closeIdleConnections();
        })
      : Promise.resolve();
    if (runsWorkers()) await app.get(WorkerRunner, { strict: false }).drain();
    await closed;
    await app.close();
    return 0;
  })().catch((err: unknown) => {
    logger.error({ err: err instanceof Error ? err.message : String(err) }, 'error while shutting down');
    return 1;
  });
  const code = await Promise.race([work, timedOut]);
  clearTimeout(timer);
  logger.info({ ms: Date.now() - started, code }, 'shutdown complete');
  return code;
}
