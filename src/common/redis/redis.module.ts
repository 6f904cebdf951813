import { Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { appConfig } from '../../config/app-config.js';
import { logger } from '../logging/logger.js';

export const REDIS = Symbol('REDIS');

/**
 * The longest any command of the shared client waits for an answer (at most 1 s). A Redis
 * that accepts connections but never answers (stopped with SIGSTOP, a full network buffer, a
 * half-open connection) then costs a request at most this long, and the rate limiter fails open.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 1000;

/**
 * A shared Redis connection for rate limiting and light coordination. Commands fail fast while
 * Redis is down (no offline queue) and time out after REDIS_COMMAND_TIMEOUT_MS while it hangs, so
 * callers can fail open instead of hanging; commands of one event-loop turn are pipelined
 * automatically.
 */
export function createRedis(): Redis {
  const client = new Redis(appConfig().redisUrl, {
    enableOfflineQueue: false,
    // Commands issued in the same event-loop turn (concurrent requests' rate-limit checks) go out in
    // one write: fewer syscalls per request (docs/performance.md).
    enableAutoPipelining: true,
    maxRetriesPerRequest: 1,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: 2000,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
  let lastLogged = 0;
  client.on('error', (err: Error) => {
    if (Date.now() - lastLogged > 10_000) {
      lastLogged = Date.now();
      logger.warn({ err: err.message }, 'redis connection error');
    }
  });
  return client;
}

class RedisCloser implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}
  onApplicationShutdown(): void {
    this.redis.disconnect();
  }
}

@Global()
@Module({
  providers: [{ provide: REDIS, useFactory: createRedis }, RedisCloser],
  exports: [REDIS],
})
export class RedisModule {}
