/**
 * One pooled nodemailer transport per inbox, keyed by the sealed credentials so a reconnected inbox
 * gets a fresh pool. Timeouts are bounded, and every send carries a deadline (`sendWithin`), so a
 * stalled server can never hold a send longer than the claim lease allows (see send-engine.service.ts).
 *
 * Each send also tells whether the message was handed over: whether the server had answered the
 * DATA command (354) and the message started to flow. nodemailer pipes the message stream into the
 * socket only then, so a stream plugin records the message's stream(s) and `handedOver()` asks
 * whether one was read (as nodemailer's own pool does before it retries a message elsewhere).
 */
import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import nodemailer, { type SendMailOptions, type Transporter } from 'nodemailer';
import type { Readable } from 'node:stream';
import type { Inbox } from '../inboxes/entities/inbox.entity.js';
import { openSettings, type MailServerSettings } from '../inboxes/inbox-credentials.js';
import { InboxTokens, isOAuthInbox, type TokenInbox } from '../inboxes/oauth/inbox-tokens.service.js';

export const SMTP_TIMEOUTS = { connectionTimeout: 30_000, greetingTimeout: 30_000, socketTimeout: 60_000 };

/** The longest one SMTP conversation may take, queueing in the pool included (before a short lease cuts it). */
export const SMTP_SEND_DEADLINE_MS = 120_000;

/** What a send leaves to look at after it failed. */
export interface SmtpTrace {
  /** True once the server accepted the DATA command and the message started to flow. */
  handedOver(): boolean;
}

interface TraceState {
  streams: Readable[];
}

/** The mail option (copied by nodemailer into `mail.data`) that carries a send's trace. */
const TRACE_KEY = 'smtpTrace';

type Plugin = Parameters<Transporter['use']>[1];

/** nodemailer 'stream' plugin: keeps a reference to each stream the transport will read the message from. */
const recordStreams: Plugin = (mail, done) => {
  const state = (mail.data as unknown as Record<string, unknown>)[TRACE_KEY] as TraceState | undefined;
  if (state) {
    mail.message.processFunc((stream) => {
      state.streams.push(stream);
      return stream;
    });
  }
  done();
};

/** An OAuth inbox's sign-in: nodemailer's OAuth2 auth (SASL XOAUTH2) with tokens from `token()`. */
export interface SmtpOAuth {
  user: string;
  token: () => Promise<string>;
}

export function createSmtpTransport(s: MailServerSettings, pooled = true, oauth?: SmtpOAuth): Transporter {
  const transport = nodemailer.createTransport({
    host: s.host,
    port: s.port,
    secure: s.secure,
    auth: oauth
      ? {
          type: 'OAuth2',
          user: oauth.user,
          // Each new connection asks for a token: InboxTokens answers from memory while it is fresh.
          provisionCallback: (
            _user: string,
            _renew: boolean,
            done: (err: Error | null, token?: string) => void,
          ) => {
            oauth.token().then(
              (token) => done(null, token),
              (err: unknown) => done(err instanceof Error ? err : new Error('OAuth token unavailable')),
            );
          },
        }
      : s.user
        ? { user: s.user, pass: s.password ?? '' }
        : undefined,
    pool: pooled,
    maxConnections: 4,
    maxMessages: 500,
    ...SMTP_TIMEOUTS,
  });
  transport.use('stream', recordStreams);
  return transport;
}

/**
 * Sends `mail` through `transport`, giving up after `deadlineMs` (the connection delivering it is
 * closed). Resolves with nodemailer's info; on failure rejects with `{ err, trace }`.
 */
export async function sendWithin(
  transport: Transporter,
  mail: SendMailOptions,
  deadlineMs: number,
): Promise<{ info: { accepted?: unknown[]; rejected?: unknown[] } }> {
  const state: TraceState = { streams: [] };
  const trace: SmtpTrace = { handedOver: () => state.streams.some((x) => x.readableDidRead) };
  try {
    const info = (await transport.sendMail({
      ...mail,
      signal: AbortSignal.timeout(deadlineMs),
      [TRACE_KEY]: state,
    } as SendMailOptions)) as { accepted?: unknown[]; rejected?: unknown[] };
    return { info };
  } catch (err) {
    throw new SmtpSendError(err, trace);
  }
}

/** A failed send: nodemailer's error and whether the message had been handed over. */
export class SmtpSendError extends Error {
  constructor(
    readonly smtpError: unknown,
    readonly trace: SmtpTrace,
  ) {
    super(smtpError instanceof Error ? smtpError.message : String(smtpError));
  }
}

@Injectable()
export class SmtpTransportPool implements OnModuleDestroy {
  private readonly transports = new Map<string, { fingerprint: string; transport: Transporter }>();

  constructor(private readonly tokens: InboxTokens) {}

  /**
   * The inbox's pooled transport. For an OAuth inbox a fresh access token is made sure of first
   * (from memory once cached), so a refused or unavailable grant fails here, before anything is
   * handed to SMTP (OAuthGrantRefused / OAuthUnavailable).
   */
  async forInbox(inbox: TokenInbox & Pick<Inbox, 'smtpSealed'>): Promise<Transporter> {
    const settings = () => openSettings(inbox.smtpSealed, inbox.id, 'smtp');
    if (!isOAuthInbox(inbox)) return this.get(inbox.id, inbox.smtpSealed, settings);
    await this.tokens.accessToken(inbox);
    return this.get(inbox.id, `${inbox.smtpSealed} ${inbox.oauthConnectedAt?.getTime()}`, settings, {
      user: inbox.email,
      token: () => this.tokens.accessToken(inbox),
    });
  }

  /** `settings` is only called (credentials decrypted) when the inbox has no pool for `fingerprint`. */
  get(
    inboxId: string,
    fingerprint: string,
    settings: () => MailServerSettings,
    oauth?: SmtpOAuth,
  ): Transporter {
    const cached = this.transports.get(inboxId);
    if (cached && cached.fingerprint === fingerprint) return cached.transport;
    cached?.transport.close();
    const transport = createSmtpTransport(settings(), true, oauth);
    this.transports.set(inboxId, { fingerprint, transport });
    return transport;
  }

  onModuleDestroy(): void {
    for (const { transport } of this.transports.values()) transport.close();
    this.transports.clear();
  }
}
