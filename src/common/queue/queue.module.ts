import { BullModule, getQueueToken } from '@nestjs/bull';
import { Global, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Queue } from 'bull';
import { Redis, type RedisOptions } from 'ioredis';
import { appConfig } from '../../config/app-config.js';
import { QueueName } from './queues.js';

/**
 * How long a command of Bull's `client` connection (adding jobs, job state updates) may wait for
 * Redis, also while it sits in the offline queue during an outage: a `queue.add()` from an HTTP
 * handler fails after this instead of hanging until Redis returns. Generous next to
 * the shared client's 1 s, because Bull's Lua scripts (moving a finished job, cleaning) do real work.
 */
export const BULL_COMMAND_TIMEOUT_MS = 5000;

/** Connections this process made for Bull; closed after the queues (see BullClientsCloser). */
const bullClients = new Map<Redis, 'client' | 'subscriber' | 'bclient'>();

/**
 * Bull's three connections per queue: `client` (commands, with the timeout above), and the
 * `subscriber` and `bclient` (blocking BRPOPLPUSH) connections, which must wait indefinitely and
 * so keep `maxRetriesPerRequest: null` and no ready check, as Bull requires. `config` already holds
 * Bull's reconnect strategy and the host, port and db of REDIS_URL.
 */
export function createBullClient(type: 'client' | 'subscriber' | 'bclient', config: RedisOptions): Redis {
  const client =
    type === 'client'
      ? new Redis({ ...config, commandTimeout: BULL_COMMAND_TIMEOUT_MS })
      : new Redis({ ...config, maxRetriesPerRequest: null, enableReadyCheck: false });
  // Kept until shutdown even after an 'end': Bull reconnects its blocking client itself (to abort a
  // BRPOPLPUSH when a worker pauses), so an ended connection may come back.
  bullClients.set(client, type);
  return client;
}

/**
 * With its own `createClient`, Bull leaves closing the connections to its caller: after every queue
 * of this process has closed (Queue#close() is memoised, so whichever shutdown hook runs first waits
 * for the same close), each connection quits, or is dropped after a second.
 */
@Injectable()
export class BullClientsCloser implements OnApplicationShutdown {
  constructor(private readonly moduleRef: ModuleRef) {}

  async onApplicationShutdown(): Promise<void> {
    const queues: Queue[] = [];
    for (const name of Object.values(QueueName)) {
      try {
        queues.push(this.moduleRef.get<Queue>(getQueueToken(name), { strict: false }));
      } catch {
        // Not registered in this process.
      }
    }
    await Promise.all(queues.map((q) => q.close().catch(() => undefined)));
    const clients = [...bullClients];
    bullClients.clear();
    await Promise.all(
      clients.map(async ([client, type]) => {
        if (client.status === 'end') return;
        // A blocking or subscribed connection has nothing to finish: dropped, as Bull does.
        if (type !== 'client') return client.disconnect();
        const timer = setTimeout(() => client.disconnect(), 1000);
        try {
          await client.quit();
        } catch {
          client.disconnect();
        } finally {
          clearTimeout(timer);
        }
      }),
    );
  }
}

/** Bull on Redis, configured at start-up (forRootAsync) with this run's key prefix. */
@Global()
@Module({
  imports: [
    BullModule.forRootAsync({
      useFactory: () => ({
        url: appConfig().redisUrl,
        prefix: `${appConfig().redisPrefix}:bull`,
        createClient: createBullClient,
        defaultJobOptions: { removeOnComplete: 1000, removeOnFail: 5000 },
      }),
    }),
  ],
  providers: [BullClientsCloser],
  exports: [BullModule],
})
export class QueueModule {}
