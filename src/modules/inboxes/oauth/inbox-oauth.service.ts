/**
 * Connecting a Google or Microsoft inbox by OAuth 2.0 from the API (CONTRACT §19):
 *
 * - `start` makes a state (random, signed with a key derived for this purpose) and a PKCE code
 *   verifier, keeps the flow (state as a hash, verifier sealed, 10 minutes) and answers the
 *   provider's consent URL.
 * - `callback` checks the state's signature (a forged state never reaches the database), takes the
 *   flow (deleting it: single use), refuses it when expired or for another provider, exchanges the
 *   code (openid-client checks the state and sends the verifier), reads the address, and connects
 *   (or reconnects) that address as an inbox of the workspace that started the flow, the refresh
 *   token sealed. A failure connects nothing; its reason is a short code, never a token.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { derivedKey, hmacSha256, safeEqual, seal, sealedAt, unseal } from '../../../common/crypto/crypto.js';
import { ApiError } from '../../../common/http/api-error.js';
import { logger } from '../../../common/logging/logger.js';
import { appConfig } from '../../../config/app-config.js';
import {
  OAUTH_PROVIDERS,
  oauthNotConfigured,
  type OAuthProviderName,
} from '../../../config/mail-providers.js';
import { connectOAuthInbox } from '../inboxes.service.js';
import { authorizationUrl, exchangeCode, OAuthGrantRefused, UnverifiedAccount } from './oauth-client.js';
import * as oauth from 'openid-client';
import { OAuthFlowsRepository } from './oauth-flows.repository.js';
import type { WorkspaceId } from '../../../common/tenant/workspace-id.js';

export const OAUTH_STATE_TTL_MS = 10 * 60_000;

/** Why a callback connected nothing (the `error` of the redirect, the page's reason). */
export type OAuthCallbackError =
  | 'invalid_state'
  | 'expired_state'
  | 'access_denied'
  | 'grant_refused'
  | 'provider_unavailable'
  | 'invalid_account'
  | 'account_mismatch';

export type OAuthCallbackResult =
  | { ok: true; inboxId: string; email: string; returnUrl: string | null; reconnected: boolean }
  | { ok: false; error: OAuthCallbackError; returnUrl: string | null };

let stateKey: Buffer | undefined;
const key = (): Buffer => (stateKey ??= derivedKey('oauth-state'));

const sign = (nonce: string): string => hmacSha256(key(), `state ${nonce}`).toString('base64url');
/** What is stored for a state (never the state itself). */
const stateHash = (state: string): string => hmacSha256(key(), `hash ${state}`).toString('hex');
const verifierAt = (hash: string): string => sealedAt('oauth_flows', 'code_verifier_sealed', hash);

/** True when `state` was made by `start` (its signature holds). */
export function stateSigned(state: unknown): state is string {
  if (typeof state !== 'string' || state.length > 200) return false;
  const [nonce, mac, ...rest] = state.split('.');
  if (!nonce || !mac || rest.length > 0) return false;
  return safeEqual(Buffer.from(mac), Buffer.from(sign(nonce)));
}

/** The origin of a URL (`null` when it is none). */
const originOf = (url: string): string => {
  try {
    return new URL(url).origin;
  } catch {
    return 'null';
  }
};

export const isOAuthProvider = (p: string): p is OAuthProviderName =>
  (OAUTH_PROVIDERS as readonly string[]).includes(p);

/** The callback URL registered at the provider: `{PUBLIC_URL}/oauth/{provider}/callback`. */
export const redirectUri = (provider: OAuthProviderName): string =>
  `${appConfig().publicUrl}/oauth/${provider}/callback`;

@Injectable()
export class InboxOAuthService {
  constructor(
    private readonly flows: OAuthFlowsRepository,
    @InjectDataSource() private readonly db: DataSource,
  ) {}

  async start(
    workspaceId: WorkspaceId,
    provider: OAuthProviderName,
    returnUrl: string | null,
  ): Promise<{ authorization_url: string; state: string; expires_at: string }> {
    const p = appConfig().mailProviders[provider];
    if (returnUrl !== null && !appConfig().oauthReturnOrigins.includes(originOf(returnUrl))) {
      throw ApiError.validation(
        'return_url',
        `return_url must be on an origin the operator allows (OAUTH_RETURN_ORIGINS: ${appConfig().oauthReturnOrigins.join(', ')})`,
      );
    }
    const notConfigured = oauthNotConfigured(p, provider);
    if (notConfigured) throw ApiError.conflict(notConfigured);
    const nonce = randomBytes(32).toString('base64url');
    const state = `${nonce}.${sign(nonce)}`;
    const codeVerifier = oauth.randomPKCECodeVerifier();
    const hash = stateHash(state);
    const expiresAt = new Date(Date.now() + OAUTH_STATE_TTL_MS);
    const url = await authorizationUrl(provider, redirectUri(provider), state, codeVerifier);
    await this.flows.insert(workspaceId, {
      stateHash: hash,
      provider,
      codeVerifierSealed: seal(codeVerifier, verifierAt(hash)),
      returnUrl,
      expiresAt,
    });
    void this.flows.sweepExpiredAcrossWorkspaces().catch(() => undefined);
    return { authorization_url: url, state, expires_at: expiresAt.toISOString() };
  }

  async callback(provider: string, query: Record<string, unknown>): Promise<OAuthCallbackResult> {
    const state = query.state;
    if (!isOAuthProvider(provider) || !stateSigned(state))
      return { ok: false, error: 'invalid_state', returnUrl: null };
    const flow = await this.flows.takeByStateAcrossWorkspaces(stateHash(state));
    if (!flow || flow.provider !== provider) return { ok: false, error: 'invalid_state', returnUrl: null };
    // An expired flow never redirects: its return_url was checked against the origins of 10 minutes
    // ago at most, and a stale link must not become a redirect to anywhere.
    if (flow.expiresAt.getTime() <= Date.now()) return { ok: false, error: 'expired_state', returnUrl: null };
    // Checked again at the callback: the operator may have narrowed OAUTH_RETURN_ORIGINS meanwhile.
    const returnUrl =
      flow.returnUrl !== null && appConfig().oauthReturnOrigins.includes(originOf(flow.returnUrl))
        ? flow.returnUrl
        : null;
    if (typeof query.error === 'string' || typeof query.code !== 'string') {
      return { ok: false, error: 'access_denied', returnUrl };
    }
    const callbackUrl = new URL(redirectUri(provider));
    callbackUrl.searchParams.set('code', query.code);
    callbackUrl.searchParams.set('state', state);
    if (typeof query.iss === 'string') callbackUrl.searchParams.set('iss', query.iss);
    try {
      const codeVerifier = unseal(flow.codeVerifierSealed, verifierAt(flow.stateHash));
      const { email, subject, tokens } = await exchangeCode(provider, callbackUrl, state, codeVerifier);
      const { inbox, reconnected } = await connectOAuthInbox(this.db, {
        workspaceId: flow.workspaceId,
        email,
        provider,
        refreshToken: tokens.refreshToken,
        // The consent asked for the API scopes too: the provider's own API.
        transport: 'api',
        subject,
      });
      logger.info({ inboxId: inbox.id, provider, reconnected }, 'oauth: inbox connected');
      return { ok: true, inboxId: inbox.id, email: inbox.email, returnUrl, reconnected };
    } catch (err) {
      const error: OAuthCallbackError =
        err instanceof OAuthGrantRefused
          ? 'grant_refused'
          : err instanceof ApiError && err.getStatus() === 409
            ? 'account_mismatch'
            : err instanceof ApiError || err instanceof UnverifiedAccount
              ? 'invalid_account'
              : 'provider_unavailable';
      logger.warn(
        { provider, error, reason: err instanceof Error ? err.message : 'error' },
        'oauth: callback connected nothing',
      );
      return { ok: false, error, returnUrl };
    }
  }
}
