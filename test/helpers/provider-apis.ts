/**
 * The providers' APIs for a test file: the local OAuth server, Gmail API and Graph (fake-gmail.ts,
 * fake-graph.ts), the environment that points both providers at them (set before the app boots,
 * removed by `restoreEnv`), refresh tokens minted through the OAuth server's own code flow, and the
 * mails a test delivers into a fake mailbox (a reply, an auto-reply, a delivery-status report).
 */
import { createHash, randomBytes } from 'node:crypto';
import { resetConfig } from '../../src/config/app-config.js';
import { startFakeGmail, type FakeGmail } from './fake-gmail.js';
import { startFakeGraph, type FakeGraph } from './fake-graph.js';
import { startOAuthServer, type FakeOAuthServer } from './oauth-server.js';

export interface ProviderFakes {
  oauth: FakeOAuthServer;
  gmail: FakeGmail;
  graph: FakeGraph;
  /** A refresh token for `email` from the OAuth server's authorization-code flow (PKCE). */
  mintRefreshToken(email: string): Promise<string>;
  close(): Promise<void>;
}

export async function startProviderFakes(extraEnv: Record<string, string> = {}): Promise<ProviderFakes> {
  const oauth = await startOAuthServer();
  const gmail = await startFakeGmail(oauth);
  const graph = await startFakeGraph(oauth);
  for (const p of ['GOOGLE', 'MICROSOFT']) {
    Object.assign(process.env, {
      [`OAUTH_${p}_CLIENT_ID`]: oauth.clientId,
      [`OAUTH_${p}_CLIENT_SECRET`]: oauth.clientSecret,
      [`OAUTH_${p}_ISSUER`]: oauth.url,
      [`OAUTH_${p}_AUTHORIZATION_URL`]: `${oauth.url}/authorize`,
      [`OAUTH_${p}_TOKEN_URL`]: `${oauth.url}/token`,
      [`OAUTH_${p}_USERINFO_URL`]: `${oauth.url}/userinfo`,
      [`${p}_SMTP_HOST`]: '127.0.0.1',
      [`${p}_SMTP_PORT`]: '1',
      [`${p}_IMAP_HOST`]: '127.0.0.1',
      [`${p}_IMAP_PORT`]: '1',
    });
  }
  Object.assign(process.env, { GMAIL_API_BASE_URL: gmail.url, GRAPH_API_BASE_URL: graph.url, ...extraEnv });
  resetConfig();
  const keys = Object.keys(extraEnv);
  return {
    oauth,
    gmail,
    graph,
    mintRefreshToken: async (email) => {
      oauth.nextEmail = email;
      const verifier = randomBytes(32).toString('base64url');
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      const redirect = 'http://127.0.0.1/cb';
      const authorize = new URL(`${oauth.url}/authorize`);
      for (const [k, v] of Object.entries({
        client_id: oauth.clientId,
        response_type: 'code',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        redirect_uri: redirect,
        state: 's',
      }))
        authorize.searchParams.set(k, v);
      const consent = await fetch(authorize, { redirect: 'manual' });
      const code = new URL(consent.headers.get('location')!).searchParams.get('code')!;
      const token = await fetch(`${oauth.url}/token`, {
        method: 'POST',
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          code_verifier: verifier,
          redirect_uri: redirect,
          client_id: oauth.clientId,
          client_secret: oauth.clientSecret,
        }),
      });
      return ((await token.json()) as { refresh_token: string }).refresh_token;
    },
    close: async () => {
      await Promise.all([gmail.close(), graph.close(), oauth.close()]);
      for (const name of Object.keys(process.env)) {
        if (/^(OAUTH_(GOOGLE|MICROSOFT)_|(GOOGLE|MICROSOFT)_(SMTP|IMAP)_|GMAIL_API_|GRAPH_API_)/.test(name))
          delete process.env[name];
      }
      for (const k of keys) delete process.env[k];
      resetConfig();
    },
  };
}

/** A person's answer (or, with `autoReply`, an out-of-office) to the message `inReplyTo`. */
export function replyMail(o: {
  from: string;
  to: string;
  inReplyTo: string;
  body: string;
  autoReply?: boolean;
}): string {
  return [
    `From: ${o.from}`,
    `To: ${o.to}`,
    `Subject: ${o.autoReply ? 'Automatic reply: Quick question' : 'Re: Quick question'}`,
    `Message-ID: <r-${randomBytes(6).toString('hex')}@leads.test>`,
    `Date: ${new Date().toUTCString()}`,
    `In-Reply-To: ${o.inReplyTo}`,
    `References: ${o.inReplyTo}`,
    ...(o.autoReply ? ['Auto-Submitted: auto-replied', 'X-Autoreply: yes'] : []),
    'Content-Type: text/plain; charset=utf-8',
    '',
    o.body,
    '',
  ].join('\r\n');
}

/** A delivery-status report (5.1.1, user unknown) about the message `original` sent from `from` to `to`. */
export function bounceMail(o: { from: string; to: string; original: string }): string {
  return [
    'From: Mail Delivery System <MAILER-DAEMON@mx.leads.test>',
    `To: ${o.from}`,
    'Subject: Undelivered Mail Returned to Sender',
    `Message-ID: <dsn-${randomBytes(6).toString('hex')}@mx.leads.test>`,
    'Auto-Submitted: auto-replied',
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=delivery-status; boundary="RPT"',
    '',
    '--RPT',
    'Content-Type: text/plain; charset=us-ascii',
    '',
    'Your message could not be delivered.',
    '',
    '--RPT',
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.leads.test',
    '',
    `Final-Recipient: rfc822; ${o.to}`,
    'Action: failed',
    'Status: 5.1.1',
    'Diagnostic-Code: smtp; 550 5.1.1 user unknown',
    '',
    '--RPT',
    'Content-Type: text/rfc822-headers',
    '',
    `Message-ID: ${o.original}`,
    `From: ${o.from}`,
    `To: ${o.to}`,
    'Subject: Quick question',
    '',
    '--RPT--',
    '',
  ].join('\r\n');
}
