/**
 * The limiter on the service's shared, auto-pipelined Redis client (real Redis). ioredis copies a
 * client's custom commands into a pipeline when the pipeline is created; rate-limiter-flexible
 * defines its command (`rlflxIncr`) when a limiter is created. A first request whose limiter is new,
 * in the same event-loop turn as any other command on the client (a readiness ping), then met a
 * pipeline without the command: ioredis threw `results[i] is not iterable` outside any promise and
 * the process went down (redis/ioredis#1931). Seen once in CI: test/platform/dependencies.
 */
import type { Redis } from 'ioredis';
import { appConfig } from '../../config/app-config.js';
import { createRedis } from '../redis/redis.module.js';
import { RateLimitService } from './rate-limit.service.js';

describe('RateLimitService on the shared Redis client', () => {
  let redis: Redis;
  const uncaught: unknown[] = [];
  const onUncaught = (err: unknown): void => {
    uncaught.push(err);
  };

  beforeAll(async () => {
    redis = createRedis();
    await new Promise<void>((resolve) =>
      redis.status === 'ready' ? resolve() : redis.once('ready', () => resolve()),
    );
  });
  afterAll(() => redis.disconnect());
  beforeEach(() => {
    uncaught.length = 0;
    process.prependListener('uncaughtException', onUncaught);
  });
  afterEach(() => {
    process.removeListener('uncaughtException', onUncaught);
  });

  it('answers a first request whose limiter is new in the same turn as another command', async () => {
    const limits = new RateLimitService(redis);
    const keyId = Date.now();
    const ping = redis.ping(); // opens the turn's auto-pipeline before the limiter exists
    const first = limits.consume(keyId, 7);
    const other = limits.consume(keyId + 1, 11); // a second new limiter in the same turn
    const [pong, a, b] = await Promise.all([ping, first, other]);
    await new Promise((r) => setTimeout(r, 50)); // callbacks run on the next ticks
    expect(uncaught).toEqual([]);
    expect(pong).toBe('PONG');
    expect(a.headers.RateLimit).toBe('"per-key";r=6;t=60');
    expect(b.headers['RateLimit-Policy']).toBe('"per-key";q=11;w=60');
  });

  it('take: a named scope counts its own keys, apart from the API keys of the same limit', async () => {
    const limits = new RateLimitService(redis);
    const key = `mx-${Date.now()}.example`;
    const taken: boolean[] = [];
    for (let i = 0; i < 4; i++) taken.push(await limits.take('probe-test', key, 3));
    expect(taken).toEqual([true, true, true, false]);
    expect(await limits.take('probe-test', `other-${key}`, 3)).toBe(true);
    expect(await limits.take('other-scope', key, 3)).toBe(true);
    expect(await redis.exists(`${appConfig().redisPrefix}:rl:probe-test:3:${key}`)).toBe(1);
  });
});
