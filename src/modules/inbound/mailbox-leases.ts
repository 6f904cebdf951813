/**
 * Which worker reads which mailbox, in Redis: a worker is a member of `imap:workers` (a sorted set
 * scored by when its membership lapses, renewed by its heartbeat), and a mailbox is read only by the
 * worker holding its lease `imap:lease:<inbox id>` (a key holding the worker id, with a TTL renewed by
 * the same heartbeat). Mailboxes are spread by rendezvous hashing over the live members: each worker
 * claims the mailboxes for which it scores highest, so adding a worker moves only its share, and a
 * worker that stops or dies leaves only its own share to move.
 *
 * Hand-over: a worker gives a lease back (DEL, only if still its own) after it has closed that
 * mailbox's connection; a worker that dies stops renewing, so its leases lapse after
 * IMAP_LEASE_SECONDS. A new owner takes a lease only when no one holds it (SET NX). Nothing here
 * holds a database connection. Times are Redis's own clock (TIME), so workers' clocks may differ.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

// Renew what is ours, take what is free: 1 per key when held afterwards, 0 when another holds it.
const ACQUIRE = `
local out = {}
for i, key in ipairs(KEYS) do
  local v = redis.call('GET', key)
  if v == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
    out[i] = 1
  elseif v == false then
    redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
    out[i] = 1
  else
    out[i] = 0
  end
end
return out`;

const RELEASE = `
local n = 0
for _, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    redis.call('DEL', key)
    n = n + 1
  end
end
return n`;

// Heartbeat: renew my membership, drop lapsed members, answer the live ones.
const HEARTBEAT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 4)
return redis.call('ZRANGE', KEYS[1], 0, -1)`;

/** Score of `worker` for `inboxId`: the live worker with the highest score reads the mailbox. */
export function rendezvousScore(worker: string, inboxId: string): number {
  return createHash('sha256').update(`${worker}\n${inboxId}`).digest().readUInt32BE(0);
}

/** The live worker that should read `inboxId` (highest rendezvous score; ties by name). */
export function ownerOf(inboxId: string, workers: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestScore = -1;
  for (const w of workers) {
    const score = rendezvousScore(w, inboxId);
    if (score > bestScore || (score === bestScore && best !== undefined && w < best)) {
      best = w;
      bestScore = score;
    }
  }
  return best;
}

export class MailboxLeases {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    readonly workerId: string,
    private readonly leaseMs: number,
    /** The fleet: `imap` (IMAP mailboxes) or `api` (inboxes read through their provider's API). */
    private readonly fleet: 'imap' | 'api' = 'imap',
  ) {}

  private leaseKey = (inboxId: string): string => `${this.prefix}:${this.fleet}:lease:${inboxId}`;
  private get workersKey(): string {
    return `${this.prefix}:${this.fleet}:workers`;
  }

  /** Renews this worker's membership; answers the live workers (this one included). */
  async heartbeat(): Promise<string[]> {
    return (await this.redis.eval(HEARTBEAT, 1, this.workersKey, this.workerId, this.leaseMs)) as string[];
  }

  /** Leaves the membership (a clean stop: the others take over at their next heartbeat). */
  async leave(): Promise<void> {
    await this.redis.zrem(this.workersKey, this.workerId);
  }

  /** Takes or renews the leases of `inboxIds`; answers those this worker holds afterwards. */
  async acquire(inboxIds: string[]): Promise<Set<string>> {
    const held = new Set<string>();
    for (let i = 0; i < inboxIds.length; i += 500) {
      const chunk = inboxIds.slice(i, i + 500);
      const got = (await this.redis.eval(
        ACQUIRE,
        chunk.length,
        ...chunk.map(this.leaseKey),
        this.workerId,
        this.leaseMs,
      )) as number[];
      chunk.forEach((id, j) => {
        if (got[j] === 1) held.add(id);
      });
    }
    return held;
  }

  /** Gives leases back (only those still this worker's). */
  async release(inboxIds: string[]): Promise<void> {
    for (let i = 0; i < inboxIds.length; i += 500) {
      const chunk = inboxIds.slice(i, i + 500);
      await this.redis.eval(RELEASE, chunk.length, ...chunk.map(this.leaseKey), this.workerId);
    }
  }

  /**
   * Counts one login of `inboxId` in this clock hour (across workers); answers how long to wait
   * before logging in when `limit` logins were already made this hour, else 0 (and the login counts).
   */
  async loginAllowance(inboxId: string, limit: number): Promise<number> {
    const hour = Math.floor(Date.now() / 3_600_000);
    const key = `${this.prefix}:${this.fleet}:logins:${inboxId}:${hour}`;
    const n = await this.redis.incr(key);
    if (n === 1) await this.redis.expire(key, 3700);
    if (n <= limit) return 0;
    return (hour + 1) * 3_600_000 - Date.now();
  }
}
