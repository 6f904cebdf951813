/**
 * The mail providers an inbox can connect to by OAuth 2.0 (CONTRACT §19): their OAuth endpoints and
 * client credentials, their SMTP and IMAP servers, and what sending-domain health expects of a
 * domain that sends through them. Every URL, host and port has the real default and its own
 * variable (`OAUTH_GOOGLE_TOKEN_URL`, `GOOGLE_SMTP_HOST`, ...), so tests run against local servers.
 */
export type OAuthProviderName = 'google' | 'microsoft';
export const OAUTH_PROVIDERS: readonly OAuthProviderName[] = ['google', 'microsoft'];

export interface MailServer {
  host: string;
  port: number;
  /** Implicit TLS (465/993); false means STARTTLS when offered. */
  secure: boolean;
}

export interface MailProviderConfig {
  name: OAuthProviderName;
  /** Empty when the operator registered no app: `start` answers 409. */
  clientId: string;
  clientSecret: string;
  /** The issuer the ID token names (`{tenantid}` for Microsoft's multi-tenant endpoints). */
  issuer: string;
  authorizationUrl: string;
  tokenUrl: string;
  userinfoUrl: string;
  /** What is asked for: mail over SMTP and IMAP, the address, a refresh token. */
  scopes: string[];
  /** Extra parameters of the authorization request (offline access, consent). */
  authorizationParams: Record<string, string>;
  smtp: MailServer;
  imap: MailServer;
  /**
   * The provider's own mail API (CONTRACT §25), its root: Gmail API (`GMAIL_API_BASE_URL`, default
   * https://gmail.googleapis.com, paths under /gmail/v1) or Microsoft Graph (`GRAPH_API_BASE_URL`,
   * default https://graph.microsoft.com, paths under /v1.0). A base that already ends with the
   * version path is used as it is.
   */
  apiBaseUrl: string;
  /**
   * Scopes an access token for the API must carry when the provider issues one token per resource
   * (Microsoft: Graph's, not Outlook's SMTP/IMAP audience); empty when one token serves both.
   */
  apiTokenScopes: string[];
  /** Where the provider publishes DKIM keys for a customer's domain. */
  dkimSelectors: string[];
  /** An address the provider sends from: an SPF record that authorises the provider passes for it. */
  spfProbeIp: string;
  label: string;
  /** True when any OAuth endpoint or the issuer was set by a variable: no OpenID discovery then. */
  endpointsOverridden: boolean;
}

const portVar = (env: NodeJS.ProcessEnv, name: string, fallback: number): number => {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || n < 1 || n > 65535) throw new Error(`${name} must be a port (1..65535)`);
  return n;
};

const boolVar = (env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean =>
  env[name] === undefined || env[name] === '' ? fallback : env[name] === 'true';

function server(env: NodeJS.ProcessEnv, prefix: string, host: string, port: number): MailServer {
  return {
    host: env[`${prefix}_HOST`] || host,
    port: portVar(env, `${prefix}_PORT`, port),
    secure: boolVar(env, `${prefix}_SECURE`, true),
  };
}

const overridden = (env: NodeJS.ProcessEnv, provider: string): boolean =>
  ['AUTHORIZATION_URL', 'TOKEN_URL', 'USERINFO_URL', 'ISSUER'].some((name) =>
    Boolean(env[`OAUTH_${provider}_${name}`]),
  );

export function loadMailProviders(env: NodeJS.ProcessEnv): Record<OAuthProviderName, MailProviderConfig> {
  const tenant = env.OAUTH_MICROSOFT_TENANT || 'common';
  const ms = `https://login.microsoftonline.com/${encodeURIComponent(tenant)}`;
  return {
    google: {
      name: 'google',
      label: 'Google',
      clientId: env.OAUTH_GOOGLE_CLIENT_ID ?? '',
      clientSecret: env.OAUTH_GOOGLE_CLIENT_SECRET ?? '',
      issuer: env.OAUTH_GOOGLE_ISSUER || 'https://accounts.google.com',
      authorizationUrl: env.OAUTH_GOOGLE_AUTHORIZATION_URL || 'https://accounts.google.com/o/oauth2/v2/auth',
      tokenUrl: env.OAUTH_GOOGLE_TOKEN_URL || 'https://oauth2.googleapis.com/token',
      userinfoUrl: env.OAUTH_GOOGLE_USERINFO_URL || 'https://openidconnect.googleapis.com/v1/userinfo',
      // SMTP/IMAP (mail.google.com) and the Gmail API (send, read), so either transport works.
      scopes: [
        'openid',
        'email',
        'https://mail.google.com/',
        'https://www.googleapis.com/auth/gmail.send',
        'https://www.googleapis.com/auth/gmail.readonly',
      ],
      authorizationParams: { access_type: 'offline', prompt: 'consent' },
      smtp: server(env, 'GOOGLE_SMTP', 'smtp.gmail.com', 465),
      apiBaseUrl: baseUrl(env, 'GMAIL_API_BASE_URL', 'https://gmail.googleapis.com'),
      apiTokenScopes: [],
      imap: server(env, 'GOOGLE_IMAP', 'imap.gmail.com', 993),
      dkimSelectors: ['google'],
      spfProbeIp: '209.85.220.41',
      endpointsOverridden: overridden(env, 'GOOGLE'),
    },
    microsoft: {
      name: 'microsoft',
      label: 'Microsoft',
      clientId: env.OAUTH_MICROSOFT_CLIENT_ID ?? '',
      clientSecret: env.OAUTH_MICROSOFT_CLIENT_SECRET ?? '',
      issuer: env.OAUTH_MICROSOFT_ISSUER || 'https://login.microsoftonline.com/{tenantid}/v2.0',
      authorizationUrl: env.OAUTH_MICROSOFT_AUTHORIZATION_URL || `${ms}/oauth2/v2.0/authorize`,
      tokenUrl: env.OAUTH_MICROSOFT_TOKEN_URL || `${ms}/oauth2/v2.0/token`,
      userinfoUrl: env.OAUTH_MICROSOFT_USERINFO_URL || 'https://graph.microsoft.com/oidc/userinfo',
      scopes: [
        'openid',
        'email',
        'offline_access',
        'https://outlook.office.com/SMTP.Send',
        'https://outlook.office.com/IMAP.AccessAsUser.All',
        'https://graph.microsoft.com/Mail.Send',
        'https://graph.microsoft.com/Mail.Read',
      ],
      authorizationParams: { prompt: 'select_account' },
      // Microsoft 365 takes SMTP submission on 587 with STARTTLS only.
      smtp: {
        ...server(env, 'MICROSOFT_SMTP', 'smtp.office365.com', 587),
        ...smtpSecure(env, 'MICROSOFT_SMTP', false),
      },
      imap: server(env, 'MICROSOFT_IMAP', 'outlook.office365.com', 993),
      apiBaseUrl: baseUrl(env, 'GRAPH_API_BASE_URL', 'https://graph.microsoft.com'),
      // One resource per access token: an API inbox's token is asked for Graph's scopes.
      apiTokenScopes: [
        'https://graph.microsoft.com/Mail.Send',
        'https://graph.microsoft.com/Mail.Read',
        'offline_access',
      ],
      dkimSelectors: ['selector1', 'selector2'],
      spfProbeIp: '40.107.22.0',
      endpointsOverridden: overridden(env, 'MICROSOFT'),
    },
  };
}

function baseUrl(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const raw = (env[name] || fallback).replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`${name} must be an http(s) URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new Error(`${name} must be an http(s) URL`);
  return raw;
}

function smtpSecure(env: NodeJS.ProcessEnv, prefix: string, fallback: boolean): { secure: boolean } {
  return { secure: boolVar(env, `${prefix}_SECURE`, fallback) };
}

/** DNS_SERVERS: `ip[:port]` entries (IPv6 as `[ip]:port`), comma-separated; empty = the system's resolver. */
export function parseDnsServers(raw: string | undefined): string[] {
  const list = (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const s of list) {
    if (!/^(\d{1,3}(\.\d{1,3}){3}(:\d{1,5})?|\[[0-9a-fA-F:]+\](:\d{1,5})?|[0-9a-fA-F:]+)$/.test(s)) {
      throw new Error(`DNS_SERVERS entry "${s}" must be ip[:port]`);
    }
  }
  return list;
}

/**
 * Why OAuth for `provider` cannot run here, naming the variables to set; null when it can. The API's
 * 409 on `POST /inboxes/oauth/{provider}/start` and the CLI's `inbox:connect --provider` say the same.
 */
export function oauthNotConfigured(
  config: Pick<MailProviderConfig, 'clientId'>,
  provider: OAuthProviderName,
): string | null {
  if (config.clientId) return null;
  const prefix = `OAUTH_${provider.toUpperCase()}`;
  return `OAuth for ${provider} is not configured: set ${prefix}_CLIENT_ID and ${prefix}_CLIENT_SECRET`;
}
