/**
 * The workspace's `ai_daily_limit` (CONTRACT §20): calls to its AI provider per UTC day, counted in
 * Redis (one key per workspace and day, INCR then EXPIRE, atomic across processes). A call is counted
 * when it is about to be made, whatever its outcome: the provider bills it. Redis down or hanging
 * makes the count unknowable: `tryConsume` throws, and `categorize` falls back to the rules
 * (`fallback: 'error'`) rather than call without a cap. Losing Redis's data resets the day's count.
 */
import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { REDIS } from '../../common/redis/redis.module.js';
import { appConfig } from '../../config/app-config.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

/** A day's key outlives the day, so a late call near midnight still finds it; then it expires. */
const KEY_TTL_SECONDS = 2 * 86_400;

@Injectable()
export class AiDailyLimit {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  private key(workspaceId: WorkspaceId, at: Date): string {
    return `${appConfig().redisPrefix}:ai-calls:${workspaceId}:${at.toISOString().slice(0, 10)}`;
  }

  /** Counts one call and says whether it is within `limit` for the UTC day (0: never). */
  async tryConsume(workspaceId: WorkspaceId, limit: number, at: Date = new Date()): Promise<boolean> {
    if (limit <= 0) return false;
    const key = this.key(workspaceId, at);
    const result = await this.redis.multi().incr(key).expire(key, KEY_TTL_SECONDS).exec();
    const [err, count] = result?.[0] ?? [new Error('no answer'), null];
    if (err) throw err;
    return Number(count) <= limit;
  }

  /** The day's count (tests and diagnostics). */
  async used(workspaceId: WorkspaceId, at: Date = new Date()): Promise<number> {
    return Number((await this.redis.get(this.key(workspaceId, at))) ?? 0);
  }
}
