/**
 * A local stand-in for Google's / Microsoft's authorization server, speaking OAuth 2.0 over HTTP on
 * 127.0.0.1: `/authorize` (consent is given at once: 302 back to the redirect URI with a code),
 * `/token` (authorization_code with PKCE S256 verified, client_secret_post; refresh_token) and
 * `/userinfo` (Bearer). Access tokens live `accessTtlSeconds`; refresh tokens can be revoked
 * (`invalid_grant`) and the token endpoint taken down (503).
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { generateKeyPair, SignJWT } from 'jose';
import { freePort } from '../../src/config/embedded.js';

export interface FakeOAuthServer {
  url: string;
  clientId: string;
  clientSecret: string;
  /** Seconds an access token lives (default 3600). */
  accessTtlSeconds: number;
  /** When true, /token answers 503. */
  down: boolean;
  /** When true, /token reads the request and never answers (the connection stays open). */
  hang: boolean;
  /** When set, /token answers 200 with a JSON body of this many bytes (padding in an extra field). */
  tokenAnswerBytes: number | null;
  /** The address the next consent is given for. */
  nextEmail: string;
  /**
   * Microsoft's way: the code exchange also answers an ID token (RS256, `preferred_username`, `tid`)
   * and user-info refuses the mail-audience access token.
   */
  microsoftStyle: boolean;
  /** Microsoft's `xms_edov` in the ID token (the email domain's owner verified `email`); default true. */
  microsoftEmailVerified: boolean;
  /**
   * Which account consents next: the subject (`sub`) is derived from the address and this, so another
   * value is another account showing the same address.
   */
  nextAccount: string;
  /**
   * Microsoft's multi-tenant issuer: `/common/v2.0/.well-known/openid-configuration` names the issuer
   * `<url>/{tenantid}/v2.0`, and ID tokens are issued by `<url>/tenant-test/v2.0` (default: `<url>`).
   */
  tenantIssuer: boolean;
  /** Token endpoint calls with grant_type=refresh_token, by refresh token. */
  refreshCalls: Map<string, number>;
  /** Every token ever issued (access and refresh), to search output for. */
  issued: string[];
  /** The refresh token issued for an address. */
  refreshTokenOf(email: string): string | undefined;
  /** True while `token` is an unexpired access token of `email`. */
  validAccess(email: string, token: string): boolean;
  /** The address an unexpired access token was issued for (what a resource server checks a bearer against). */
  accessOwner(token: string): string | undefined;
  /** Scopes asked for by each refresh (`scope` parameter, '' when none), in order. */
  refreshScopes: string[];
  revoke(email: string): void;
  close(): Promise<void>;
}

const b64url = (b: Buffer): string => b.toString('base64url');
const token = (prefix: string): string => `${prefix}_${b64url(randomBytes(24))}`;

async function body(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

export async function startOAuthServer(): Promise<FakeOAuthServer> {
  const codes = new Map<string, { email: string; account: string; challenge: string; redirectUri: string }>();
  const subjectOf = (email: string, account: string): string =>
    createHash('sha256').update(`${account}|${email}`).digest('hex').slice(0, 20);
  const access = new Map<string, { email: string; account?: string; expiresAt: number }>();
  const accountOf = new Map<string, string>();
  const refresh = new Map<string, { email: string; revoked: boolean }>();
  const port = await freePort();
  const signingKey = await generateKeyPair('RS256');
  const state: FakeOAuthServer = {
    url: `http://127.0.0.1:${port}`,
    clientId: 'client-id-test',
    clientSecret: 'client-secret-test',
    accessTtlSeconds: 3600,
    down: false,
    hang: false,
    tokenAnswerBytes: null,
    nextEmail: 'ada@example.test',
    microsoftStyle: false,
    microsoftEmailVerified: true,
    nextAccount: '',
    tenantIssuer: false,
    refreshCalls: new Map(),
    issued: [],
    refreshTokenOf: (email) => [...refresh.entries()].find(([, v]) => v.email === email)?.[0],
    accessOwner: (t) => {
      const a = access.get(t);
      return a && a.expiresAt > Date.now() ? a.email : undefined;
    },
    refreshScopes: [],
    validAccess: (email, t) => {
      const a = access.get(t);
      return Boolean(a && a.email === email && a.expiresAt > Date.now());
    },
    revoke: (email) => {
      for (const v of refresh.values()) if (v.email === email) v.revoked = true;
    },
    close: () =>
      new Promise((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
  const issueAccess = (email: string, account = ''): { access_token: string; expires_in: number } => {
    const t = token('at');
    state.issued.push(t);
    access.set(t, { email, account, expiresAt: Date.now() + state.accessTtlSeconds * 1000 });
    return { access_token: t, expires_in: state.accessTtlSeconds };
  };
  const json = (res: import('node:http').ServerResponse, status: number, payload: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify(payload));
  };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', state.url);
      if (req.method === 'GET' && url.pathname === '/common/v2.0/.well-known/openid-configuration') {
        return json(res, 200, {
          issuer: `${state.url}/{tenantid}/v2.0`,
          authorization_endpoint: `${state.url}/authorize`,
          token_endpoint: `${state.url}/token`,
          userinfo_endpoint: `${state.url}/userinfo`,
          jwks_uri: `${state.url}/keys`,
          response_types_supported: ['code'],
          subject_types_supported: ['pairwise'],
          id_token_signing_alg_values_supported: ['RS256'],
        });
      }
      if (req.method === 'GET' && url.pathname === '/authorize') {
        const q = url.searchParams;
        if (
          q.get('client_id') !== state.clientId ||
          q.get('response_type') !== 'code' ||
          q.get('code_challenge_method') !== 'S256'
        ) {
          return json(res, 400, { error: 'invalid_request' });
        }
        const code = token('code');
        codes.set(code, {
          email: state.nextEmail,
          account: state.nextAccount,
          challenge: q.get('code_challenge') ?? '',
          redirectUri: q.get('redirect_uri') ?? '',
        });
        const back = new URL(q.get('redirect_uri') ?? '');
        back.searchParams.set('code', code);
        back.searchParams.set('state', q.get('state') ?? '');
        res.writeHead(302, { location: back.href });
        return res.end();
      }
      if (req.method === 'POST' && url.pathname === '/token') {
        if (state.down) return json(res, 503, { error: 'temporarily_unavailable' });
        const p = await body(req);
        if (state.hang) return; // never answered; closed with the server
        if (state.tokenAnswerBytes !== null) {
          const head = JSON.stringify({
            token_type: 'Bearer',
            access_token: 'at_big',
            expires_in: 3600,
            pad: '',
          });
          const pad = 'x'.repeat(Math.max(0, state.tokenAnswerBytes - head.length));
          return json(res, 200, { token_type: 'Bearer', access_token: 'at_big', expires_in: 3600, pad });
        }
        if (p.get('client_id') !== state.clientId || p.get('client_secret') !== state.clientSecret) {
          return json(res, 401, { error: 'invalid_client' });
        }
        if (p.get('grant_type') === 'authorization_code') {
          const c = codes.get(p.get('code') ?? '');
          codes.delete(p.get('code') ?? '');
          const verifier = p.get('code_verifier') ?? '';
          const challenge = b64url(createHash('sha256').update(verifier).digest());
          if (!c || c.redirectUri !== p.get('redirect_uri') || !verifier || challenge !== c.challenge) {
            return json(res, 400, { error: 'invalid_grant' });
          }
          const rt = token('rt');
          state.issued.push(rt);
          refresh.set(rt, { email: c.email, revoked: false });
          accountOf.set(rt, c.account);
          const idToken = state.microsoftStyle
            ? await new SignJWT({
                // Microsoft's: `email` (verified when `xms_edov` is true) and a `preferred_username`
                // that may be any string (here another address, which must never be used).
                email: c.email,
                xms_edov: state.microsoftEmailVerified,
                preferred_username: `alias.${c.email}`,
                tid: 'tenant-test',
                oid: 'oid-test',
              })
                .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
                .setIssuer(state.tenantIssuer ? `${state.url}/tenant-test/v2.0` : state.url)
                .setAudience(state.clientId)
                .setSubject(subjectOf(c.email, c.account))
                .setIssuedAt()
                .setExpirationTime('1h')
                .sign(signingKey.privateKey)
            : undefined;
          if (idToken) state.issued.push(idToken);
          return json(res, 200, {
            token_type: 'Bearer',
            refresh_token: rt,
            scope: 'email https://mail.google.com/',
            ...(idToken ? { id_token: idToken } : {}),
            ...issueAccess(c.email, c.account),
          });
        }
        if (p.get('grant_type') === 'refresh_token') {
          const rt = p.get('refresh_token') ?? '';
          state.refreshCalls.set(rt, (state.refreshCalls.get(rt) ?? 0) + 1);
          state.refreshScopes.push(p.get('scope') ?? '');
          const r = refresh.get(rt);
          if (!r || r.revoked)
            return json(res, 400, {
              error: 'invalid_grant',
              error_description: 'Token has been expired or revoked.',
            });
          return json(res, 200, { token_type: 'Bearer', ...issueAccess(r.email, accountOf.get(rt)) });
        }
        return json(res, 400, { error: 'unsupported_grant_type' });
      }
      if (req.method === 'POST' && url.pathname === '/introspect') {
        // RFC 7662 token introspection, as Dovecot's oauth2 passdb asks it.
        const t = (await body(req)).get('token') ?? '';
        const a = access.get(t);
        if (!a || a.expiresAt < Date.now()) return json(res, 200, { active: false });
        return json(res, 200, { active: true, email: a.email, exp: Math.floor(a.expiresAt / 1000) });
      }
      if (req.method === 'GET' && url.pathname === '/userinfo') {
        if (state.microsoftStyle) return json(res, 401, { error: 'invalid_token' });
        const t = (req.headers.authorization ?? '').replace(/^Bearer /, '');
        const a = access.get(t);
        if (!a || a.expiresAt < Date.now()) return json(res, 401, { error: 'invalid_token' });
        return json(res, 200, {
          sub: subjectOf(a.email, a.account ?? ''),
          email: a.email,
          email_verified: true,
        });
      }
      return json(res, 404, { error: 'not_found' });
    })();
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  return state;
}
