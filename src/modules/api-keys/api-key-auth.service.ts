/** Resolves a bearer token to a Principal: checksum first (no DB), then one indexed lookup of its hash. */
import { Injectable } from '@nestjs/common';
import { hashToken, parseToken } from '../../common/auth/token.js';
import type { Principal } from '../../common/auth/principal.js';
import { DEFAULT_RATE_LIMIT } from '../../common/auth/scopes.js';
import { asWorkspaceId } from '../../common/tenant/workspace-id.js';
import { appConfig } from '../../config/app-config.js';
import { logger } from '../../common/logging/logger.js';
import { ApiKeysRepository, LOOKUP_SQL, type KeyRow } from './api-keys.repository.js';

export { LOOKUP_SQL };

const LAST_USED_EVERY_MS = 60_000;

/**
 * Resolved keys are remembered for one second per process: the lookup was a large share of the CPU of
 * a cheap request (docs/performance.md, GET /me). A revoke or rotate in this
 * process forgets the key at once; one done in another process (the CLI) takes effect within
 * CACHE_TTL_MS. Unknown tokens are never cached, so garbage cannot fill the map.
 */
export const CACHE_TTL_MS = 1000;
const CACHE_MAX = 10_000;

@Injectable()
export class ApiKeyAuthService {
  private readonly lastUsedWrites = new Map<number, number>();
  private readonly cache = new Map<string, { row: KeyRow; until: number }>();

  constructor(private readonly keys: ApiKeysRepository) {}

  async resolve(token: string): Promise<Principal | null> {
    const claimed = parseToken(token);
    if (!claimed) return null;
    const row = await this.lookup(hashToken(token, appConfig().apiKeyPepper));
    if (!row || row.tier !== claimed) return null;
    if (row.revoked_at) return null;
    if (row.expires_at && row.expires_at.getTime() <= Date.now()) return null;
    this.touch(row.id);
    return {
      keyId: row.id,
      tier: row.tier,
      name: row.name,
      prefix: row.prefix,
      scopes: row.scopes,
      workspaceId: row.workspace_id === null ? null : asWorkspaceId(row.workspace_id),
      organizationId: row.org_id,
      rateLimit: row.rate_limit ?? row.org_rate_limit ?? DEFAULT_RATE_LIMIT[row.tier],
      expiresAt: row.expires_at,
      allowedIps: row.allowed_ips,
    };
  }

  /** Forgets a key at once (after revoke or rotate in this process). */
  forgetKey(id: number): void {
    for (const [hash, entry] of this.cache) if (entry.row.id === id) this.cache.delete(hash);
  }

  private async lookup(hash: string): Promise<KeyRow | undefined> {
    const now = Date.now();
    const hit = this.cache.get(hash);
    if (hit && hit.until > now) return hit.row;
    const row = await this.keys.findByTokenHashAcrossWorkspaces(hash);
    if (!row) {
      this.cache.delete(hash);
      return undefined;
    }
    if (this.cache.size >= CACHE_MAX) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(hash, { row, until: now + CACHE_TTL_MS });
    return row;
  }

  /** last_used_at is written at most once a minute per key per process: no write on the hot path. */
  private touch(id: number): void {
    const now = Date.now();
    if (now - (this.lastUsedWrites.get(id) ?? 0) < LAST_USED_EVERY_MS) return;
    this.lastUsedWrites.set(id, now);
    this.keys.markUsedAcrossWorkspaces(id).catch((err: unknown) => {
      logger.warn({ err: String(err) }, 'could not record last_used_at');
    });
  }
}
