/**
 * The OAuth 2.0 protocol, by `openid-client` (authorization-code flow with PKCE S256, refresh-token
 * grant, user-info): nothing here builds, parses or signs a token by hand. With the providers' real
 * endpoints the server metadata comes from OpenID discovery (which also handles Microsoft's
 * multi-tenant issuer); when any endpoint is overridden (OAUTH_GOOGLE_TOKEN_URL, ...: tests, a
 * proxy) the configured endpoints are used as given. Plain http is allowed only for loopback hosts.
 *
 * Errors come out as two kinds: `OAuthGrantRefused` (the provider answered `invalid_grant`: revoked,
 * expired, password changed; only a new consent helps) and `OAuthUnavailable` (anything else: the
 * endpoint is down, slow or answered garbage; retried later). Neither carries a token.
 */
import * as client from 'openid-client';
import { appConfig } from '../../../config/app-config.js';
import type { MailProviderConfig, OAuthProviderName } from '../../../config/mail-providers.js';

/** Requests to the provider (discovery, token, user-info) give up after this long, body included. */
export const OAUTH_TIMEOUT_MS = 10_000;
/** A provider's answer larger than this is refused (a token answer is a few KiB). */
export const OAUTH_MAX_RESPONSE_BYTES = 1024 * 1024;

/** Raised by `boundedFetch` for an answer over OAUTH_MAX_RESPONSE_BYTES. */
class ResponseTooLarge extends Error {
  readonly code = 'response_too_large';
}

/**
 * Every HTTP request openid-client makes goes through here (its `customFetch`): the library's own
 * `timeout` is 30 s unless set on the Configuration, and it reads any answer whole. This one aborts
 * after OAUTH_TIMEOUT_MS (connecting, waiting and reading the body alike) and stops reading past
 * OAUTH_MAX_RESPONSE_BYTES, so a hostile or broken endpoint costs at most that much time and memory.
 */
export const boundedFetch: client.CustomFetch = async (url, options) => {
  const timeout = AbortSignal.timeout(OAUTH_TIMEOUT_MS);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const res = await fetch(url, { ...options, signal });
  const declared = Number(res.headers.get('content-length') ?? 0);
  if (declared > OAUTH_MAX_RESPONSE_BYTES) {
    await res.body?.cancel().catch(() => undefined);
    throw new ResponseTooLarge(`answer of ${declared} bytes refused`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (res.body) {
    const reader = res.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > OAUTH_MAX_RESPONSE_BYTES) {
        await reader.cancel().catch(() => undefined);
        throw new ResponseTooLarge(`answer over ${OAUTH_MAX_RESPONSE_BYTES} bytes refused`);
      }
      chunks.push(value);
    }
  }
  const nullBody = [101, 204, 205, 304].includes(res.status);
  return new Response(nullBody ? null : Buffer.concat(chunks), {
    status: res.status,
    statusText: res.statusText,
    headers: res.headers,
  });
};

export class OAuthGrantRefused extends Error {
  constructor(readonly provider: OAuthProviderName) {
    super(`${provider} refused the OAuth grant (invalid_grant): the inbox must be connected again`);
    this.name = 'OAuthGrantRefused';
  }
}

export class OAuthUnavailable extends Error {
  constructor(
    readonly provider: OAuthProviderName,
    what: string,
  ) {
    super(`${provider} OAuth ${what}`);
    this.name = 'OAuthUnavailable';
  }
}

/** The provider named no verified address (or no subject) for the account: it cannot be an inbox. */
export class UnverifiedAccount extends Error {
  constructor(readonly provider: OAuthProviderName) {
    super(
      provider === 'microsoft'
        ? 'microsoft named no verified address for the account (an email claim with xms_edov: true)'
        : `${provider} named no verified address for the account`,
    );
    this.name = 'UnverifiedAccount';
  }
}

/** The address in `claims` when the provider vouches for it (see `exchangeCode`). */
function verifiedEmail(provider: OAuthProviderName, claims: Record<string, unknown>): string | undefined {
  if (typeof claims.email !== 'string') return undefined;
  const verified =
    provider === 'microsoft'
      ? claims.xms_edov === true || claims.xms_edov === 'true' || claims.xms_edov === 1
      : claims.email_verified === true || claims.email_verified === 'true';
  return verified ? claims.email : undefined;
}

export interface TokenSet {
  accessToken: string;
  /** Epoch ms. */
  expiresAt: number;
  /** A new refresh token when the provider rotated it. */
  refreshToken?: string;
}

const isLoopback = (url: string): boolean => {
  const host = new URL(url).hostname;
  return host === '127.0.0.1' || host === 'localhost' || host === '[::1]';
};

/** Where Microsoft's multi-tenant discovery document is (its path also on a moved origin). */
const MICROSOFT_DISCOVERY_BASE = 'https://login.microsoftonline.com/common/v2.0';

const configs = new Map<string, Promise<client.Configuration>>();

/** The provider's openid-client configuration (discovered once per process for the real endpoints). */
export function oauthConfig(provider: OAuthProviderName): Promise<client.Configuration> {
  const p = appConfig().mailProviders[provider];
  const key = `${provider} ${p.clientId} ${p.tokenUrl} ${p.authorizationUrl} ${p.issuer}`;
  let config = configs.get(key);
  if (!config) {
    config = build(p).catch((err: unknown) => {
      configs.delete(key);
      throw err;
    });
    configs.set(key, config);
  }
  return config;
}

async function build(p: MailProviderConfig): Promise<client.Configuration> {
  const metadata = { client_secret: p.clientSecret };
  const timeout = OAUTH_TIMEOUT_MS / 1000;
  if (!p.endpointsOverridden) {
    const issuer =
      p.name === 'microsoft'
        ? new URL(p.authorizationUrl.replace(/\/oauth2\/v2\.0\/authorize$/, '/v2.0'))
        : new URL(p.issuer);
    try {
      return await client.discovery(issuer, p.clientId, metadata, undefined, {
        timeout,
        [client.customFetch]: boundedFetch,
      });
    } catch {
      throw new OAuthUnavailable(p.name, 'discovery failed');
    }
  }
  const loopback = [p.authorizationUrl, p.tokenUrl, p.userinfoUrl].every(isLoopback);
  if (p.name === 'microsoft' && p.issuer.includes('{tenantid}')) {
    // Microsoft's endpoints moved (a proxy, a test server) but no issuer set: discovery at the moved
    // origin, as for Microsoft itself, so openid-client expects the document's `{tenantid}` issuer
    // with the ID token's `tid` in it (a literal template never matches any token).
    const moved = new URL(p.authorizationUrl).origin;
    const real = new URL(MICROSOFT_DISCOVERY_BASE);
    const toMoved: client.CustomFetch = (url, options) =>
      boundedFetch(url.startsWith(real.origin) ? moved + url.slice(real.origin.length) : url, options);
    try {
      return await client.discovery(real, p.clientId, metadata, undefined, {
        timeout,
        [client.customFetch]: toMoved,
        ...(loopback ? { execute: [client.allowInsecureRequests] } : {}),
      });
    } catch {
      throw new OAuthUnavailable(p.name, 'discovery failed');
    }
  }
  const config = new client.Configuration(
    {
      issuer: p.issuer,
      authorization_endpoint: p.authorizationUrl,
      token_endpoint: p.tokenUrl,
      userinfo_endpoint: p.userinfoUrl,
    },
    p.clientId,
    metadata,
  );
  config.timeout = timeout;
  config[client.customFetch] = boundedFetch;
  if (loopback) client.allowInsecureRequests(config);
  return config;
}

/** The consent URL for a new flow, with its PKCE challenge. */
export async function authorizationUrl(
  provider: OAuthProviderName,
  redirectUri: string,
  state: string,
  codeVerifier: string,
): Promise<string> {
  const p = appConfig().mailProviders[provider];
  const config = await oauthConfig(provider);
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: p.scopes.join(' '),
    state,
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    ...p.authorizationParams,
  });
  return url.href;
}

/**
 * Exchanges the callback's code (state and PKCE checked by openid-client) and reads the account: its
 * subject (`sub`) and its address, from verified claims only, in the validated ID token when there is
 * one, else from the user-info endpoint. Google: `email` with `email_verified: true`. Microsoft:
 * `email` with `xms_edov: true` (the email domain's owner verified it; an optional claim the app
 * registration asks for); `preferred_username` and an unverified `email` can name any address and
 * are never used.
 */
export async function exchangeCode(
  provider: OAuthProviderName,
  callbackUrl: URL,
  state: string,
  codeVerifier: string,
): Promise<{ email: string; subject: string; tokens: TokenSet & { refreshToken: string } }> {
  const config = await oauthConfig(provider);
  let tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers;
  try {
    tokens = await client.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: codeVerifier,
      expectedState: state,
    });
  } catch (err) {
    throw classify(provider, err, 'code exchange failed');
  }
  if (!tokens.refresh_token)
    throw new OAuthUnavailable(provider, 'gave no refresh token (offline access refused)');
  const claims = tokens.claims();
  let subject = typeof claims?.sub === 'string' ? claims.sub : undefined;
  let email = claims ? verifiedEmail(provider, claims) : undefined;
  if (!email && provider === 'google') {
    try {
      const info = await client.fetchUserInfo(
        config,
        tokens.access_token,
        subject ?? client.skipSubjectCheck,
      );
      email = verifiedEmail(provider, info);
      subject ??= info.sub;
    } catch (err) {
      throw classify(provider, err, 'user-info failed');
    }
  }
  if (!email || !subject) throw new UnverifiedAccount(provider);
  return {
    email,
    subject,
    tokens: {
      accessToken: tokens.access_token,
      expiresAt: expiresAt(tokens),
      refreshToken: tokens.refresh_token,
    },
  };
}

/** A fresh access token for a refresh token (for `scopes` when given: another resource's token). */
export async function refreshAccessToken(
  provider: OAuthProviderName,
  refreshToken: string,
  scopes: string[] = [],
): Promise<TokenSet> {
  const config = await oauthConfig(provider);
  try {
    const tokens = await client.refreshTokenGrant(
      config,
      refreshToken,
      scopes.length ? { scope: scopes.join(' ') } : undefined,
    );
    return {
      accessToken: tokens.access_token,
      expiresAt: expiresAt(tokens),
      ...(tokens.refresh_token && tokens.refresh_token !== refreshToken
        ? { refreshToken: tokens.refresh_token }
        : {}),
    };
  } catch (err) {
    throw classify(provider, err, 'token refresh failed');
  }
}

const expiresAt = (tokens: client.TokenEndpointResponseHelpers): number =>
  Date.now() + 1000 * (tokens.expiresIn() ?? 3600);

/** invalid_grant → refused for good; anything else is transient. Never keeps the library's error (it may hold the response). */
function classify(provider: OAuthProviderName, err: unknown, what: string): Error {
  if (err instanceof OAuthGrantRefused || err instanceof OAuthUnavailable) return err;
  if (err instanceof client.ResponseBodyError && err.error === 'invalid_grant')
    return new OAuthGrantRefused(provider);
  const cause = (err as { cause?: unknown } | null)?.cause;
  const code =
    err instanceof client.ResponseBodyError
      ? err.error
      : err instanceof ResponseTooLarge || cause instanceof ResponseTooLarge
        ? 'response_too_large'
        : (err as Error | null)?.name === 'TimeoutError' || (cause as Error | null)?.name === 'TimeoutError'
          ? 'timeout'
          : ((err as { code?: string } | null)?.code ?? 'error');
  return new OAuthUnavailable(provider, `${what} (${code})`);
}
