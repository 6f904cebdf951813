/**
 * The Microsoft Graph calls the service makes (https://learn.microsoft.com/graph/api/overview), for
 * the mailbox `/users/{address}` the delegated access token may use:
 *
 * - `POST /users/{id}/sendMail` with the whole MIME message, base64, as `text/plain` (202, no body;
 *   Exchange keeps the message's own Message-ID, so the one stored is the one replies quote);
 * - the inbox's messages by delta query, `mailFolders('inbox')/messages/delta`, created messages
 *   only, received in the last days on the first round; paged by `@odata.nextLink`, ending in an
 *   `@odata.deltaLink` (the checkpoint); 410 when the delta token is no longer known (`expired`);
 * - each message's MIME from `/messages/{id}/$value`.
 *
 * Links the provider hands back are followed only on the configured origin (the bearer token never
 * goes anywhere else); a foreign link counts as an expired checkpoint.
 */
import { appConfig } from '../../../config/app-config.js';
import { ApiRequestError, apiRequest, apiRoot } from './api-http.js';

const root = (): string =>
  apiRoot(appConfig().mailProviders.microsoft.apiBaseUrl, /\/(v1\.0|beta)$/, '/v1.0');
const user = (address: string): string => `${root()}/users/${encodeURIComponent(address)}`;

export const GRAPH_READ_DEADLINE_MS = 30_000;
/** Messages per delta page asked for (Graph's `Prefer: odata.maxpagesize`). */
const PAGE_SIZE = 100;

export interface GraphDeltaPage {
  /** Ids of messages created in the inbox, in the order Graph answered. */
  created: string[];
  /** Where the round goes on (another page), or null on its last page. */
  nextLink: string | null;
  /** The checkpoint for the next round (the last page only). */
  deltaLink: string | null;
}

export const graph = {
  async sendMail(token: string, address: string, mime: Buffer, deadlineMs: number): Promise<void> {
    await apiRequest({
      method: 'POST',
      url: `${user(address)}/sendMail`,
      token,
      body: Buffer.from(mime.toString('base64')),
      contentType: 'text/plain',
      deadlineMs,
    });
  },

  /** The first delta round's URL: messages created in the inbox and received since `since`. */
  firstDeltaUrl(address: string, since: Date): string {
    const q = new URLSearchParams({
      changeType: 'created',
      $select: 'id,receivedDateTime,internetMessageId',
      $filter: `receivedDateTime ge ${since.toISOString().replace(/\.\d{3}Z$/, 'Z')}`,
    });
    return `${user(address)}/mailFolders('inbox')/messages/delta?${q}`;
  },

  async delta(token: string, url: string): Promise<GraphDeltaPage> {
    if (new URL(url).origin !== new URL(root()).origin) {
      throw new ApiRequestError('expired', null, 'delta link on another origin');
    }
    const res = await apiRequest({
      method: 'GET',
      url,
      token,
      deadlineMs: GRAPH_READ_DEADLINE_MS,
      headers: { prefer: `odata.maxpagesize=${PAGE_SIZE}` },
      expiredOn: [410],
    });
    const page = JSON.parse(res.body.toString('utf8')) as {
      value?: Array<{ id?: string; '@removed'?: unknown }>;
      '@odata.nextLink'?: string;
      '@odata.deltaLink'?: string;
    };
    return {
      created: (page.value ?? [])
        .filter((m) => typeof m.id === 'string' && m['@removed'] === undefined)
        .map((m) => m.id as string),
      nextLink: page['@odata.nextLink'] ?? null,
      deltaLink: page['@odata.deltaLink'] ?? null,
    };
  },

  async mime(token: string, address: string, id: string): Promise<Buffer> {
    const res = await apiRequest({
      method: 'GET',
      url: `${user(address)}/messages/${encodeURIComponent(id)}/$value`,
      token,
      deadlineMs: GRAPH_READ_DEADLINE_MS,
    });
    return res.body;
  },
};
