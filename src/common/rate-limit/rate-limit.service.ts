/**
 * Per-key rate limits shared by every process (rate-limiter-flexible on Redis, atomic).
 * Headers follow the IETF RateLimit draft (structured fields). Fails open when Redis is down or
 * hangs (every command times out after REDIS_COMMAND_TIMEOUT_MS, redis.module.ts): the request goes
 * through without rate-limit headers and a warning is logged (at most every 10 s). After a failure
 * the limiter is skipped for FAIL_OPEN_MS, so a hanging Redis costs one timeout per FAIL_OPEN_MS
 * and process, not one per request; the first request after that tries Redis again.
 */
import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { appConfig } from '../../config/app-config.js';
import { ApiError } from '../http/api-error.js';
import { logger } from '../logging/logger.js';
import { REDIS } from '../redis/redis.module.js';

export const WINDOW_SECONDS = 60;
/** How long the limiter is skipped after Redis failed or timed out. */
export const FAIL_OPEN_MS = 2000;

export interface RateLimitOutcome {
  headers: Record<string, string>;
}

@Injectable()
export class RateLimitService {
  private readonly limiters = new Map<string, RateLimiterRedis>();
  private lastFailOpenLog = 0;
  /** Until when (epoch ms) requests skip the limiter after Redis failed. */
  private skipUntil = 0;

  constructor(@Inject(REDIS) private readonly redis: Redis) {
    // A limiter defines its Lua command on the client when it is created, and ioredis copies a
    // client's commands into an auto-pipeline when the pipeline is created: a limiter first created
    // during a request could meet a pipeline opened earlier in the same turn without the command,
    // and ioredis then threw outside any promise and took the process down (redis/ioredis#1931).
    // Created here, before any request, the command is on the client before any pipeline.
    this.limiter(1);
  }

  /** The limiter of `points` per minute; `scope` names limiters of other keys than API keys. */
  private limiter(points: number, scope = ''): RateLimiterRedis {
    const name = scope ? `${scope}:${points}` : String(points);
    let limiter = this.limiters.get(name);
    if (!limiter) {
      limiter = new RateLimiterRedis({
        storeClient: this.redis,
        keyPrefix: `${appConfig().redisPrefix}:rl:${name}`,
        points,
        duration: WINDOW_SECONDS,
        rejectIfRedisNotReady: true,
      });
      this.limiters.set(name, limiter);
    }
    return limiter;
  }

  private headers(limit: number, remaining: number, resetSeconds: number): Record<string, string> {
    return {
      'RateLimit-Policy': `"per-key";q=${limit};w=${WINDOW_SECONDS}`,
      RateLimit: `"per-key";r=${Math.max(0, remaining)};t=${Math.max(0, resetSeconds)}`,
    };
  }

  /**
   * The key's current state as headers, without spending a request: for answers refused before the
   * limiter (wrong tier, missing scope), which carry the headers but cost nothing. Empty when Redis
   * is unavailable (the limiter fails open).
   */
  async peek(keyId: number, limit: number): Promise<RateLimitOutcome> {
    if (this.skipUntil !== 0 && Date.now() < this.skipUntil) return { headers: {} };
    try {
      const res = await this.limiter(limit).get(String(keyId));
      if (!res) return { headers: this.headers(limit, limit, WINDOW_SECONDS) };
      return {
        headers: this.headers(limit, limit - res.consumedPoints, Math.ceil(res.msBeforeNext / 1000)),
      };
    } catch {
      return { headers: {} };
    }
  }

  /** Consumes one request for `keyId`; throws 429 (with headers) when over the limit. */
  async consume(keyId: number, limit: number): Promise<RateLimitOutcome> {
    if (this.skipUntil !== 0) {
      if (Date.now() < this.skipUntil) return { headers: {} };
      this.skipUntil = 0;
    }
    try {
      const res = await this.limiter(limit).consume(String(keyId), 1);
      return { headers: this.headers(limit, res.remainingPoints, Math.ceil(res.msBeforeNext / 1000)) };
    } catch (err) {
      if (err instanceof RateLimiterRes) {
        const retry = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
        throw new ApiError(
          429,
          'rate_limited',
          `Rate limit of ${limit} requests per minute exceeded`,
          undefined,
          {
            ...this.headers(limit, 0, retry),
            'Retry-After': String(retry),
          },
        );
      }
      this.skipUntil = Date.now() + FAIL_OPEN_MS;
      if (Date.now() - this.lastFailOpenLog > 10_000) {
        this.lastFailOpenLog = Date.now();
        logger.warn(
          { err: err instanceof Error ? err.message : String(err) },
          'rate limiter unavailable; failing open',
        );
      }
      return { headers: {} };
    }
  }

  /**
   * Spends one of `limit` points per minute of `key` in the limiter named `scope` (its own Redis keys,
   * `<REDIS_PREFIX>:rl:<scope>:<limit>:<key>`, shared by every process): true within the limit, false
   * over it. Unlike `consume` this does not fail open: a Redis failure is thrown, and the caller
   * decides (the SMTP probe of address verification then does not connect).
   */
  async take(scope: string, key: string, limit: number): Promise<boolean> {
    try {
      await this.limiter(limit, scope).consume(key, 1);
      return true;
    } catch (err) {
      if (err instanceof RateLimiterRes) return false;
      throw err;
    }
  }
}
