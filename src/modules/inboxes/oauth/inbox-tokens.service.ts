/**
 * Access tokens of OAuth inboxes (CONTRACT §19), refreshed before they expire and ONCE per inbox
 * however many workers send:
 *
 * 1. In process: a token still fresh (more than a quarter of its life, at most 5 minutes, left) is
 *    reused from memory, so a send costs no query once a token is cached; concurrent callers of one
 *    process share one lookup.
 * 2. Across processes (Redis): the token is kept sealed under `<prefix>:oauth:at:<inbox>:<grant>`
 *    until it is no longer fresh; one process at a time holds `…:lock` (SET NX PX) and refreshes,
 *    the others wait for the token it writes. A refusal (`invalid_grant`) or an outage is also
 *    written for a short while, so the waiters do not ask the token endpoint again.
 * 3. `invalid_grant` marks the inbox `reauth_required` and records `inbox.error` (one transaction);
 *    any other failure is transient (`OAuthUnavailable`: the send is retried later, the inbox stays
 *    active). Without Redis (the admin CLI, an outage) each process refreshes on its own.
 *
 * Tokens are never logged, never put in an error, never shown.
 */
import { randomBytes } from 'node:crypto';
import { Inject, Injectable, Optional, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';
import { seal, unseal } from '../../../common/crypto/crypto.js';
import { logger } from '../../../common/logging/logger.js';
import { REDIS } from '../../../common/redis/redis.module.js';
import { appConfig } from '../../../config/app-config.js';
import type { OAuthProviderName } from '../../../config/mail-providers.js';
import { Outbox } from '../../events/outbox.js';
import type { Inbox } from '../entities/inbox.entity.js';
import { registerImapAccessTokenProvider } from '../imap-auth.js';
import { openRefreshToken, sealRefreshToken } from '../inbox-credentials.js';
import { InboxesRepository } from '../inboxes.repository.js';
import {
  OAUTH_TIMEOUT_MS,
  OAuthGrantRefused,
  OAuthUnavailable,
  refreshAccessToken,
  type TokenSet,
} from './oauth-client.js';

/** The longest a worker waits for another process's refresh. */
const WAIT_FOR_REFRESH_MS = 15_000;
/**
 * Held by the refreshing process: longer than the longest refresh can take (discovery and the token
 * call, OAUTH_TIMEOUT_MS each, plus margin), so it never lapses while the request still runs and a
 * second process refreshes the same grant at once.
 */
const LOCK_MS = 2 * OAUTH_TIMEOUT_MS + 10_000;
/** How long a refusal / an outage is remembered for the other workers. */
const REFUSED_MS = 60_000;
const UNAVAILABLE_MS = 5_000;

interface CachedToken {
  accessToken: string;
  expiresAt: number;
  issuedAt: number;
}

/** What token handling needs of an inbox (the send path's rows carry these). */
export type TokenInbox = Pick<
  Inbox,
  'id' | 'workspaceId' | 'email' | 'auth' | 'provider' | 'oauthConnectedAt'
> &
  Partial<Pick<Inbox, 'transport'>>;

/**
 * The scopes of an access token for the provider's API when its tokens are per resource (Microsoft
 * Graph for an `api` inbox); empty: the token of the grant serves.
 */
const apiScopes = (inbox: TokenInbox): string[] =>
  inbox.transport === 'api' && isOAuthInbox(inbox)
    ? appConfig().mailProviders[inbox.provider].apiTokenScopes
    : [];

export const isOAuthInbox = (
  i: Pick<Inbox, 'auth' | 'provider'>,
): i is Pick<Inbox, 'auth'> & { provider: OAuthProviderName } =>
  i.auth === 'oauth2' && (i.provider === 'google' || i.provider === 'microsoft');

/** Fresh: more than a quarter of its life (at most 5 minutes) left. */
const fresh = (t: CachedToken, now = Date.now()): boolean =>
  t.expiresAt - now > Math.min(300_000, (t.expiresAt - t.issuedAt) / 4);

@Injectable()
export class InboxTokens implements OnModuleInit, OnModuleDestroy {
  private readonly memo = new Map<string, CachedToken>();
  private readonly inflight = new Map<string, Promise<CachedToken>>();

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly outbox: Outbox,
    @Optional() @Inject(REDIS) private readonly redis?: Redis,
  ) {}

  /**
   * IMAP logs in through `imapAuthFor` (imap-auth.ts): OAuth inboxes with `{user, accessToken}` from
   * here (imapflow's XOAUTH2), asked at every login; others with their sealed password.
   */
  onModuleInit(): void {
    registerImapAccessTokenProvider(async (inbox) =>
      isOAuthInbox(inbox) ? { user: inbox.email, accessToken: await this.accessToken(inbox) } : null,
    );
  }

  onModuleDestroy(): void {
    registerImapAccessTokenProvider(null);
  }

  /** A fresh access token for an OAuth inbox. Throws OAuthGrantRefused or OAuthUnavailable. */
  async accessToken(inbox: TokenInbox): Promise<string> {
    const key = this.key(inbox);
    const memo = this.memo.get(key);
    if (memo && fresh(memo)) return memo.accessToken;
    let pending = this.inflight.get(key);
    if (!pending) {
      pending = this.obtain(inbox, key).finally(() => this.inflight.delete(key));
      this.inflight.set(key, pending);
    }
    const token = await pending;
    this.memo.set(key, token);
    return token.accessToken;
  }

  /**
   * A token the provider refused (HTTP 401) is forgotten here and in Redis (only if it is still the
   * one kept), so the next `accessToken` refreshes: once across workers, like an expiry.
   */
  async invalidate(inbox: TokenInbox, accessToken: string): Promise<void> {
    const key = this.key(inbox);
    if (this.memo.get(key)?.accessToken === accessToken) this.memo.delete(key);
    if (!this.redis) return;
    try {
      const sealed = await this.redis.get(this.redisKey(key, 'at'));
      if (!sealed) return;
      const kept = JSON.parse(unseal(sealed, this.redisKey(key, 'at'))) as CachedToken;
      if (kept.accessToken === accessToken) await this.redis.del(this.redisKey(key, 'at'));
    } catch {
      // Redis away or an unreadable entry: the memory copy is gone, which is what this process needs.
    }
  }

  /**
   * Per inbox and grant: a reconnect (a new `oauth_connected_at`) never reuses the old grant's token.
   * An API inbox whose provider issues per-resource tokens has its own (`g` after the grant).
   */
  private key(inbox: TokenInbox): string {
    return `${inbox.id}:${inbox.oauthConnectedAt?.getTime() ?? 0}${apiScopes(inbox).length ? 'g' : ''}`;
  }

  private redisKey(key: string, what: 'at' | 'lock' | 'state'): string {
    const [id, grant] = key.split(':');
    return `${appConfig().redisPrefix}:oauth:${id}:${grant}:${what}`;
  }

  private async obtain(inbox: TokenInbox, key: string): Promise<CachedToken> {
    if (!this.redis) return this.refresh(inbox);
    const deadline = Date.now() + WAIT_FOR_REFRESH_MS;
    const nonce = randomBytes(12).toString('hex');
    for (;;) {
      const shared = await this.readShared(inbox, key);
      if (shared) return shared;
      let locked: boolean;
      try {
        locked = (await this.redis.set(this.redisKey(key, 'lock'), nonce, 'PX', LOCK_MS, 'NX')) === 'OK';
      } catch {
        return this.refresh(inbox); // Redis unreachable: no coordination, still a token
      }
      if (locked) {
        try {
          // Another process may have written it between our read and our lock.
          const again = await this.readShared(inbox, key);
          if (again) return again;
          return await this.refreshAndShare(inbox, key);
        } finally {
          await this.redis
            .eval(
              "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0",
              1,
              this.redisKey(key, 'lock'),
              nonce,
            )
            .catch(() => undefined);
        }
      }
      if (Date.now() > deadline)
        throw new OAuthUnavailable(inbox.provider as OAuthProviderName, 'refresh is taking too long');
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** The token another process shared, or the refusal/outage it met; null when there is none yet. */
  private async readShared(inbox: TokenInbox, key: string): Promise<CachedToken | null> {
    const provider = inbox.provider as OAuthProviderName;
    let sealed: string | null;
    let state: string | null;
    try {
      [sealed, state] = await this.redis!.mget(this.redisKey(key, 'at'), this.redisKey(key, 'state'));
    } catch {
      return null;
    }
    if (state === 'refused') throw new OAuthGrantRefused(provider);
    if (state === 'unavailable') throw new OAuthUnavailable(provider, 'token endpoint unavailable (shared)');
    if (!sealed) return null;
    try {
      const token = JSON.parse(unseal(sealed, this.redisKey(key, 'at'))) as CachedToken;
      return fresh(token) ? token : null;
    } catch {
      return null;
    }
  }

  private async refreshAndShare(inbox: TokenInbox, key: string): Promise<CachedToken> {
    try {
      const token = await this.refresh(inbox);
      const ttl = Math.max(1, token.expiresAt - Date.now());
      await this.redis!.set(
        this.redisKey(key, 'at'),
        seal(JSON.stringify(token), this.redisKey(key, 'at')),
        'PX',
        ttl,
      ).catch(() => undefined);
      return token;
    } catch (err) {
      const refused = err instanceof OAuthGrantRefused;
      await this.redis!.set(
        this.redisKey(key, 'state'),
        refused ? 'refused' : 'unavailable',
        'PX',
        refused ? REFUSED_MS : UNAVAILABLE_MS,
      ).catch(() => undefined);
      throw err;
    }
  }

  /** One call to the token endpoint with the inbox's current refresh token. */
  private async refresh(inbox: TokenInbox): Promise<CachedToken> {
    const provider = inbox.provider as OAuthProviderName;
    const repo = InboxesRepository.for(this.db.manager);
    // The row as it is now: another process may have stored a rotated refresh token.
    const current = await repo.findOne(inbox.workspaceId, { id: inbox.id });
    if (!current?.oauthSealed || !current.oauthConnectedAt)
      throw new OAuthUnavailable(provider, 'inbox has no grant');
    let tokens: TokenSet;
    try {
      tokens = await refreshAccessToken(
        provider,
        openRefreshToken(current.oauthSealed, current.id),
        apiScopes(inbox),
      );
    } catch (err) {
      if (err instanceof OAuthGrantRefused) await this.reauthRequired(current, err);
      else
        logger.warn(
          { inboxId: inbox.id, provider, reason: (err as Error).message },
          'oauth: token refresh failed; retried later',
        );
      throw err;
    }
    if (tokens.refreshToken) {
      await repo.storeRotatedRefreshToken(
        current.workspaceId,
        current.id,
        current.oauthConnectedAt,
        sealRefreshToken(tokens.refreshToken, current.id),
      );
    }
    return { accessToken: tokens.accessToken, expiresAt: tokens.expiresAt, issuedAt: Date.now() };
  }

  /** `invalid_grant`: the inbox waits for a new consent; campaigns rotate to their other inboxes. */
  private async reauthRequired(inbox: Inbox, err: OAuthGrantRefused): Promise<void> {
    await this.db.transaction(async (m) => {
      const changed = await InboxesRepository.for(m).markReauthRequired(
        inbox.workspaceId,
        inbox.id,
        inbox.oauthConnectedAt!,
        err.message,
        m,
      );
      if (!changed) return;
      await this.outbox.record(m, {
        workspaceId: inbox.workspaceId,
        type: 'inbox.error',
        data: { inbox_id: changed.id, email: changed.email, status: 'reauth_required', error: err.message },
      });
    });
    logger.warn(
      { inboxId: inbox.id, provider: err.provider },
      'oauth: grant refused; inbox needs to be connected again',
    );
  }
}
