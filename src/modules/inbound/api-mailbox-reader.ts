/**
 * Reads one inbox through its provider's own API (CONTRACT §25), beside the IMAP reader
 * (mailbox-reader.ts): what is new since the inbox's checkpoint (`inboxes.api_checkpoint`) is
 * fetched as raw MIME and handed to the same `IngestionService.ingest` as IMAP mail, so replies,
 * bounces, complaints and auto-replies are read exactly as there (CONTRACT §18).
 *
 * - **Gmail**: `users.history.list` from the stored historyId (INBOX additions), each message
 *   `format=raw`; the checkpoint becomes the history's current id once every page was read.
 * - **Graph**: the inbox's delta query from the stored delta link, each message's MIME from
 *   `/$value`; the checkpoint becomes the round's `@odata.deltaLink`.
 * - **No checkpoint yet, or an expired one** (Gmail 404 on history, Graph 410 on delta): a bounded
 *   re-read of the last `REREAD_DAYS` days (at most `REREAD_MAX` messages); ingestion's Message-ID
 *   idempotency records nothing twice, and unrelated mail is ignored by ingestion as over IMAP.
 * - **The checkpoint moves only past settled mail** (compare-and-set from the value the read began
 *   with): a transient ingestion failure stops the read and leaves it where it was, so the next read
 *   takes the same mail again (recorded once). A long backlog is read `READ_MAX` messages at a time,
 *   the checkpoint moved to where that stopped (a history record id, a delta `nextLink`).
 * - **Quotas**: a 429/503 (or Gmail's rate-limit 403) stops the read; the inbox is read again after
 *   the provider's `Retry-After`. A 401 refreshes the token once; `invalid_grant` makes the inbox
 *   `reauth_required` (InboxTokens) and its reading stops.
 *
 * One provider reader per provider (`READERS`), chosen once per read: no provider test elsewhere.
 */
import { Injectable } from '@nestjs/common';
import { logger } from '../../common/logging/logger.js';
import { Slots } from '../../common/worker/slots.js';
import { appConfig } from '../../config/app-config.js';
import type { OAuthProviderName } from '../../config/mail-providers.js';
import type { Inbox } from '../inboxes/entities/inbox.entity.js';
import { InboxStateRepository } from '../inboxes/inbox-state.repository.js';
import { InboxTokens, isOAuthInbox } from '../inboxes/oauth/inbox-tokens.service.js';
import { OAuthGrantRefused } from '../inboxes/oauth/oauth-client.js';
import { ApiRequestError } from '../inboxes/provider-api/api-http.js';
import { gmail } from '../inboxes/provider-api/gmail-api.js';
import { graph } from '../inboxes/provider-api/graph-api.js';
import { InboundRepository } from './inbound.repository.js';
import { IngestionService } from './ingestion.service.js';
import { isTransientFailure } from './transient-failure.js';

/** An expired or missing checkpoint re-reads this many days. */
export const REREAD_DAYS = 7;
/** At most this many messages are re-read. */
export const REREAD_MAX = 1000;
/** Messages settled in one read; the rest is read right after. */
export const READ_MAX = 200;

export interface ApiReadOutcome {
  ingested: number;
  rejected: number;
  /** More mail is waiting than one read took. */
  more: boolean;
  /** The provider asked to wait this long before the next request (ms). */
  waitMs?: number;
  /** The inbox is no longer read through the API (gone, switched, grant refused). */
  stop?: boolean;
  /** The checkpoint had expired (or was missing) and the recent days were re-read. */
  reread?: boolean;
}

/** Stops a read: a mail could not be settled now (it is taken again next time). */
class StopRead extends Error {}

/** What a provider's reader gets: the inbox, an authorised call (401 → one refresh), the settling of one mail. */
interface ReadContext {
  inbox: Inbox;
  call: <T>(fn: (token: string) => Promise<T>) => Promise<T>;
  /** Fetches and ingests one mail; false when it was skipped (gone, too big, unusable). */
  settle: (fetch: (token: string) => Promise<Buffer>) => Promise<void>;
  /** Moves the checkpoint (compare-and-set from where this read began, then from the last move). */
  checkpoint: (to: string) => Promise<boolean>;
  stillMine: () => boolean;
  out: ApiReadOutcome;
}

type ProviderReader = (ctx: ReadContext) => Promise<void>;

/** Gmail: history from the historyId; a re-read of recent INBOX mail when it is missing or expired. */
const readGmail: ProviderReader = async (ctx) => {
  const start = ctx.inbox.apiCheckpoint;
  if (start) {
    try {
      let pageToken: string | null = null;
      let done = 0;
      for (;;) {
        const page = await ctx.call((t) => gmail.history(t, start, pageToken));
        for (const id of page.added) {
          if (!ctx.stillMine()) throw new StopRead('lease lost');
          await ctx.settle((t) => gmail.raw(t, id));
          done += 1;
        }
        if (!page.nextPageToken) {
          await ctx.checkpoint(page.historyId);
          return;
        }
        if (done >= READ_MAX && page.lastRecordId) {
          await ctx.checkpoint(page.lastRecordId);
          ctx.out.more = true;
          return;
        }
        pageToken = page.nextPageToken;
      }
    } catch (err) {
      if (!(err instanceof ApiRequestError && err.kind === 'expired')) throw err;
      logger.warn({ inboxId: ctx.inbox.id }, 'gmail: history expired; re-reading the last days');
    }
  }
  ctx.out.reread = true;
  // The mailbox's position first: what arrives while the re-read runs is in the history after it.
  const historyId = await ctx.call((t) => gmail.historyId(t));
  const ids: string[] = [];
  let pageToken: string | null = null;
  do {
    const page = await ctx.call((t) => gmail.recent(t, REREAD_DAYS, pageToken));
    ids.push(...page.ids);
    pageToken = page.nextPageToken;
  } while (pageToken && ids.length < REREAD_MAX);
  for (const id of ids.slice(0, REREAD_MAX).reverse()) {
    if (!ctx.stillMine()) throw new StopRead('lease lost');
    await ctx.settle((t) => gmail.raw(t, id));
  }
  await ctx.checkpoint(historyId);
};

/** Graph: the delta round from the stored link; a first round over the recent days when missing or expired. */
const readGraph: ProviderReader = async (ctx) => {
  const email = ctx.inbox.email;
  let url = ctx.inbox.apiCheckpoint;
  let restarted = false;
  if (!url) {
    url = graph.firstDeltaUrl(email, new Date(Date.now() - REREAD_DAYS * 86_400_000));
    ctx.out.reread = restarted = true;
  }
  let done = 0;
  for (;;) {
    let page;
    try {
      page = await ctx.call((t) => graph.delta(t, url!));
    } catch (err) {
      if (!(err instanceof ApiRequestError && err.kind === 'expired') || restarted) throw err;
      logger.warn({ inboxId: ctx.inbox.id }, 'graph: delta token expired; re-reading the last days');
      url = graph.firstDeltaUrl(email, new Date(Date.now() - REREAD_DAYS * 86_400_000));
      ctx.out.reread = restarted = true;
      continue;
    }
    for (const id of page.created) {
      if (!ctx.stillMine()) throw new StopRead('lease lost');
      await ctx.settle((t) => graph.mime(t, email, id));
      done += 1;
    }
    if (page.deltaLink) {
      await ctx.checkpoint(page.deltaLink);
      return;
    }
    if (!page.nextLink) return;
    url = page.nextLink;
    if (done >= (restarted ? REREAD_MAX : READ_MAX)) {
      // The next page's link resumes the round where this read stopped.
      await ctx.checkpoint(url);
      ctx.out.more = true;
      return;
    }
  }
};

const READERS: Record<OAuthProviderName, ProviderReader> = { google: readGmail, microsoft: readGraph };

@Injectable()
export class ApiMailboxReader {
  private readonly ingestSlots = new Slots(Math.max(1, Math.floor(appConfig().dbPoolSize / 4)));

  constructor(
    private readonly inbound: InboundRepository,
    private readonly ingestion: IngestionService,
    private readonly inboxes: InboxStateRepository,
    private readonly tokens: InboxTokens,
  ) {}

  /** Reads what is new in the inbox (fresh from the database). */
  async read(inboxId: string, stillMine: () => boolean): Promise<ApiReadOutcome> {
    const out: ApiReadOutcome = { ingested: 0, rejected: 0, more: false };
    const inbox = await this.inbound.findInboxAcrossWorkspaces(inboxId);
    if (!inbox || inbox.transport !== 'api' || !isOAuthInbox(inbox) || inbox.status === 'reauth_required') {
      return { ...out, stop: true };
    }
    const provider = inbox.provider;
    let token: string | undefined;
    const call = async <T>(fn: (token: string) => Promise<T>): Promise<T> => {
      token ??= await this.tokens.accessToken(inbox);
      try {
        return await fn(token);
      } catch (err) {
        if (!(err instanceof ApiRequestError && err.kind === 'unauthorized')) throw err;
        await this.tokens.invalidate(inbox, token);
        token = await this.tokens.accessToken(inbox);
        return fn(token);
      }
    };
    let at = inbox.apiCheckpoint;
    const ctx: ReadContext = {
      inbox,
      call,
      stillMine,
      out,
      settle: async (fetch) => {
        let raw: Buffer;
        try {
          raw = await call(fetch);
        } catch (err) {
          if (err instanceof ApiRequestError && (err.status === 404 || err.status === 410)) {
            out.rejected += 1; // gone from the mailbox before it was read
            return;
          }
          if (
            err instanceof ApiRequestError &&
            err.kind === 'no_answer' &&
            /RES_EXCEEDED_MAX_SIZE/.test(err.message)
          ) {
            logger.warn({ inboxId }, 'api: mail over the size limit skipped unread');
            out.rejected += 1;
            return;
          }
          throw err;
        }
        try {
          const result = await this.ingestSlots.run(() => this.ingestion.ingest(inbox, raw));
          if (result.status === 'ignored') out.rejected += 1;
          else out.ingested += 1;
        } catch (err) {
          const message = err instanceof Error ? err.message : String(err);
          if (isTransientFailure(err)) {
            logger.warn({ inboxId, err: message }, 'api: ingestion failed, mail kept for the next read');
            throw new StopRead(message);
          }
          logger.error({ inboxId, err: message }, 'api: mail rejected (ingestion failed permanently)');
          out.rejected += 1;
        }
      },
      checkpoint: async (to) => {
        if (to === at) return true;
        const moved = await this.inboxes.moveApiCheckpointAcrossWorkspaces(inboxId, at, to);
        if (moved) at = to;
        else logger.warn({ inboxId }, 'api: checkpoint moved elsewhere meanwhile; not overwritten');
        return moved;
      },
    };
    try {
      await READERS[provider](ctx);
    } catch (err) {
      if (err instanceof StopRead) return out;
      if (err instanceof OAuthGrantRefused) return { ...out, stop: true };
      if (err instanceof ApiRequestError && err.kind === 'throttled') {
        logger.warn(
          { inboxId, provider, waitSeconds: err.retryAfterSeconds },
          'api: the provider asked to slow down; reading waits',
        );
        return { ...out, waitMs: (err.retryAfterSeconds ?? 60) * 1000 };
      }
      throw err;
    }
    return out;
  }
}
