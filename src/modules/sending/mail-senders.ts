/**
 * The one seam between the send path and the way a message leaves (CONTRACT §12, §25): the engine
 * and manual replies ask `MailSenders.ready(inbox)` once per send and call `send` on what it answers,
 * whatever the inbox's transport:
 *
 * - **SMTP** (password inboxes, and OAuth inboxes with `transport: smtp`): the inbox's pooled
 *   nodemailer transport (smtp-transport.pool.ts), signed in with a password or XOAUTH2;
 * - **the provider's API** (OAuth inboxes with `transport: api`): Gmail API `users.messages.send`
 *   or Microsoft Graph `sendMail`, the same message composed by nodemailer's MailComposer (so the
 *   headers, Message-ID, In-Reply-To, References and List-Unsubscribe, are those SMTP would send).
 *
 * `ready` gets the sign-in (an access token or a pooled transport) before anything is handed over:
 * a refused grant or an unavailable token endpoint fails there (OAuthGrantRefused / OAuthUnavailable)
 * and nothing was sent. `send` resolves with the Message-ID to store (the provider's when it reports
 * its own: Gmail's is read back) or rejects with what the failure means for at-most-once delivery:
 * `SmtpSendError` (classified by smtp-outcome.ts from the SMTP stage) or `SendRefused` (already
 * classified here from the API's answer):
 *
 * | API answer                                   | meaning                                             |
 * | -------------------------------------------- | --------------------------------------------------- |
 * | 2xx                                          | sent                                                |
 * | 401                                          | the token is refreshed once and the call made again |
 * | 401 again, 403, 404 (no such mailbox)        | not sent; the inbox shows the error (status error)  |
 * | 429, 503, Gmail 403 rate limit               | not sent; the inbox is held for `Retry-After`       |
 * | 400, 413 (the provider refused the message)  | a bounce, its reason read from the provider's text  |
 * | 500, other 4xx                               | not sent; retried later                             |
 * | 502, 504, no answer after the body went out  | in doubt: never re-sent, paused for review          |
 * | no answer before the body went out           | not sent; retried later                             |
 */
import { Injectable } from '@nestjs/common';
import type { Transporter } from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { logger } from '../../common/logging/logger.js';
import type { Inbox } from '../inboxes/entities/inbox.entity.js';
import { InboxTokens, isOAuthInbox, type TokenInbox } from '../inboxes/oauth/inbox-tokens.service.js';
import { OAuthGrantRefused, OAuthUnavailable } from '../inboxes/oauth/oauth-client.js';
import { ApiRequestError } from '../inboxes/provider-api/api-http.js';
import { gmail } from '../inboxes/provider-api/gmail-api.js';
import { graph } from '../inboxes/provider-api/graph-api.js';
import type { OAuthProviderName } from '../../config/mail-providers.js';
import type { SmtpError, SmtpFailure } from './engine/smtp-outcome.js';
import { SmtpTransportPool, sendWithin } from './smtp-transport.pool.js';

/** A message as the send path composes it (a campaign step or a manual reply). */
export interface OutgoingMail {
  from: { name: string; address: string };
  to: string;
  subject: string;
  text: string;
  messageId: string;
  inReplyTo?: string;
  references?: string[];
  headers: Record<string, string>;
}

export interface SendReceipt {
  /** The Message-ID replies will quote: the message's own, or the one the provider stored instead. */
  messageId: string;
}

/** An inbox signed in and ready to hand a message over. */
export interface ReadySender {
  send(mail: OutgoingMail, deadlineMs: number): Promise<SendReceipt>;
}

/** The inbox fields choosing and signing in a sender. */
export type SenderInbox = TokenInbox & Pick<Inbox, 'smtpSealed' | 'transport'>;

/** A send the provider's API did not accept, classified (see the table above). */
export class SendRefused extends Error {
  constructor(
    readonly failure: SmtpFailure,
    /** What a bounce verdict reads (the provider's status and text). */
    readonly smtpError: SmtpError,
    /** Hold the inbox this long (the provider's Retry-After). */
    readonly holdSeconds: number | null = null,
    /** Due again after this long instead of the usual retry delay (0: at once, to another inbox). */
    readonly retryDelaySeconds: number | null = null,
  ) {
    super(failure.reason);
    this.name = 'SendRefused';
  }
}

interface Sender {
  ready(inbox: SenderInbox): Promise<ReadySender>;
}

/** SMTP: the pooled transport (sign-in first), a deadline, the server's envelope verdict. */
class SmtpSender implements Sender {
  constructor(private readonly pool: SmtpTransportPool) {}

  async ready(inbox: SenderInbox): Promise<ReadySender> {
    const transport: Transporter = await this.pool.forInbox(inbox);
    return {
      send: async (mail, deadlineMs) => {
        const { info } = await sendWithin(transport, mail, deadlineMs);
        if (Array.isArray(info.rejected) && info.rejected.length > 0 && (info.accepted ?? []).length === 0) {
          const refused: SmtpError = {
            code: 'EENVELOPE',
            command: 'RCPT TO',
            responseCode: 550,
            message: 'recipient rejected',
          };
          throw refused;
        }
        return { messageId: mail.messageId };
      },
    };
  }
}

/** How one provider's API hands a composed message over; answers the provider's Message-ID if it has one. */
type ApiSend = (token: string, inbox: SenderInbox, raw: Buffer, deadlineMs: number) => Promise<string | null>;

const API_SENDS: Record<OAuthProviderName, ApiSend> = {
  google: async (token, inbox, raw, deadlineMs) => {
    const sent = await gmail.send(token, raw, deadlineMs);
    // Gmail may store a Message-ID of its own: the one it stored is what replies will quote.
    try {
      return await gmail.messageIdOf(token, sent.id);
    } catch (err) {
      logger.warn(
        { inboxId: inbox.id, reason: (err as Error).message },
        'send: Gmail sent the message; its stored Message-ID not read back (the own one is kept)',
      );
      return null;
    }
  },
  microsoft: async (token, inbox, raw, deadlineMs) => {
    await graph.sendMail(token, inbox.email, raw, deadlineMs);
    return null;
  },
};

export function composeMime(mail: OutgoingMail): Promise<Buffer> {
  return new MailComposer(mail).compile().build();
}

const oauthError = (err: unknown): SendRefused | null => {
  if (err instanceof OAuthGrantRefused) {
    return new SendRefused(
      { kind: 'not_sent', reason: err.message, inboxError: false },
      { message: err.message },
      null,
      0,
    );
  }
  if (err instanceof OAuthUnavailable) {
    return new SendRefused(
      { kind: 'not_sent', reason: err.message, inboxError: false },
      { message: err.message },
    );
  }
  return null;
};

/** What an API failure means for the send (the table in the file's comment). */
export function classifyApiFailure(err: ApiRequestError): SendRefused {
  const reason = `${err.status === null ? 'API' : `API HTTP ${err.status}`}: ${err.message}`.slice(0, 300);
  const smtpError: SmtpError = { code: 'EAPI', response: err.message, responseCode: err.status ?? undefined };
  const notSent = (inboxError: boolean, hold: number | null = null): SendRefused =>
    new SendRefused({ kind: 'not_sent', reason, inboxError }, smtpError, hold, hold);
  switch (err.kind) {
    case 'throttled':
      return notSent(false, err.retryAfterSeconds);
    case 'unauthorized':
      return notSent(true);
    case 'no_answer':
      return err.bodySent ? new SendRefused({ kind: 'unknown', reason }, smtpError) : notSent(false);
    case 'gateway':
      return new SendRefused({ kind: 'unknown', reason }, smtpError);
    case 'expired':
    case 'refused':
      if (err.status === 400 || err.status === 413) {
        return new SendRefused(
          { kind: 'bounced', responseCode: 550, reason },
          { ...smtpError, responseCode: 550 },
        );
      }
      return notSent(err.status === 403 || err.status === 404);
  }
}

/** A provider's API: an access token first, a 401 refreshed once, the answer classified. */
class ApiSender implements Sender {
  constructor(private readonly tokens: InboxTokens) {}

  async ready(inbox: SenderInbox): Promise<ReadySender> {
    if (!isOAuthInbox(inbox)) throw new Error('transport api needs an OAuth inbox');
    const handOver = API_SENDS[inbox.provider];
    let token = await this.tokens.accessToken(inbox);
    return {
      send: async (mail, deadlineMs) => {
        const raw = await composeMime(mail);
        let retried = false;
        for (;;) {
          try {
            const stored = await handOver(token, inbox, raw, deadlineMs);
            return { messageId: stored ?? mail.messageId };
          } catch (err) {
            if (!(err instanceof ApiRequestError)) throw err;
            if (err.kind !== 'unauthorized' || retried) throw classifyApiFailure(err);
            // The token was refused (revoked early, clock skew): refreshed once, then tried again.
            retried = true;
            await this.tokens.invalidate(inbox, token);
            try {
              token = await this.tokens.accessToken(inbox);
            } catch (tokenErr) {
              throw oauthError(tokenErr) ?? tokenErr;
            }
          }
        }
      },
    };
  }
}

@Injectable()
export class MailSenders {
  private readonly smtp: Sender;
  private readonly api: Sender;

  constructor(pool: SmtpTransportPool, tokens: InboxTokens) {
    this.smtp = new SmtpSender(pool);
    this.api = new ApiSender(tokens);
  }

  /** The inbox's sender, signed in (throws OAuthGrantRefused / OAuthUnavailable: nothing handed over). */
  ready(inbox: SenderInbox): Promise<ReadySender> {
    return (inbox.transport === 'api' && isOAuthInbox(inbox) ? this.api : this.smtp).ready(inbox);
  }
}
