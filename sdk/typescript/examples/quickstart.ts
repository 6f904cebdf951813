/**
 * The README's walk-through through the SDK: who am I, a sending inbox, contacts, a published
 * two-step sequence, an active campaign, enrollments, lists paged by cursor, and an error as the
 * service reports it. Needs a workspace key with the default scopes and one connected inbox; the
 * quickest way to both is `npm run cli -- demo` (it prints the key).
 *
 *     npm start                                        # the service, on http://localhost:3000
 *     OUTREACH_KEY=svc_sk_… npm run sdk:example        # builds the SDK and runs this file
 *
 * It calls OUTREACH_URL when set, else the address the service itself takes from the same
 * environment: PUBLIC_URL, else http://localhost:$PORT (3000 by default).
 *
 * `quickstart()` is also what test/openapi/sdk-quickstart.e2e-spec.ts runs against a real service.
 */
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { ApiError, createClient, items, pages, unwrap, wasReplayed, type components } from '../src/index.js';

type Contact = components['schemas']['ContactResponseDto'];

export interface QuickstartOptions {
  baseUrl: string;
  /** A workspace key (`svc_sk_…`). */
  token: string;
  fetch?: (input: Request) => Promise<Response>;
  log?: (line: string) => void;
}

export interface QuickstartResult {
  workspaceId: string | null;
  inboxId: string;
  contacts: Contact[];
  /** The first contact's create, sent again with the same Idempotency-Key: a replay of the same answer. */
  replay: { contactId: number; replayed: boolean };
  sequenceId: number;
  campaignId: number;
  campaignStatus: string;
  enrollmentIds: number[];
  /** `GET /contacts?email=…` for the first contact. */
  listedByEmail: Contact[];
  /** The campaign's enrollments, two to a page, and how many pages that took. */
  pagedEnrollmentIds: number[];
  enrollmentPages: number;
  /** A contact without an address, refused by the service. */
  refused: { status: number; type: string; field: string | undefined; message: string };
}

const TEAM = [
  { email: 'ada@example.com', first_name: 'Ada', company: 'Lovelace Ltd' },
  { email: 'grace@example.com', first_name: 'Grace', company: 'Hopper & Co' },
  { email: 'alan@example.com', first_name: 'Alan', company: 'Turing Machines' },
  { email: 'katherine@example.com', first_name: 'Katherine', company: 'Johnson Orbital' },
  { email: 'edsger@example.com', first_name: 'Edsger', company: 'Dijkstra Paths' },
];

export async function quickstart(options: QuickstartOptions): Promise<QuickstartResult> {
  const log = options.log ?? (() => undefined);
  const client = createClient({
    baseUrl: options.baseUrl,
    token: options.token,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  // One run's Idempotency-Keys: a retry of this run may reuse them, another run must not.
  const run = randomUUID();

  // 1. The key: GET /me needs no scope.
  const me = (await unwrap(client.GET('/api/v1/me'))).data;
  log(`key ${me.prefix}… (${me.tier}) on workspace ${me.workspace_id ?? '-'}`);

  // 2. A sending inbox, connected by an operator (`inbox:connect`, or `demo`).
  const inbox = (await unwrap(client.GET('/api/v1/inboxes', { params: { query: { per_page: 1 } } }))).data[0];
  if (!inbox) throw new Error('No inbox in this workspace: run `npm run cli -- demo` or `inbox:connect`');
  log(`sending from ${inbox.email} (${inbox.id})`);

  // 3. Contacts. POST /contacts is an upsert by email; the Idempotency-Key makes a retry safe.
  const contacts: Contact[] = [];
  for (const person of TEAM) {
    const { data } = await unwrap(
      client.POST('/api/v1/contacts', {
        params: { header: { 'Idempotency-Key': `${run}-contact-${person.email}` } },
        body: person,
      }),
    );
    contacts.push(data);
  }
  const first = contacts[0]!;
  log(`contacts ${contacts.map((c) => c.id).join(', ')}`);
  const again = await client.POST('/api/v1/contacts', {
    params: { header: { 'Idempotency-Key': `${run}-contact-${TEAM[0]!.email}` } },
    body: TEAM[0]!,
  });
  if (!again.data) throw new ApiError(again.response, again.error);
  const replay = { contactId: again.data.data.id, replayed: wasReplayed(again.response) };
  log(`same Idempotency-Key again: contact ${replay.contactId}, replayed=${replay.replayed}`);

  // 4. A two-step sequence: the follow-up has no subject, so it goes out as a reply in the thread.
  const sequence = (
    await unwrap(
      client.POST('/api/v1/sequences', {
        body: {
          name: 'Quickstart sequence',
          steps: [
            {
              position: 1,
              delay_minutes: 0,
              subject: 'Quick question, {{ first_name | default: "there" }}',
              body: 'Hi {{ first_name | default: "there" }},\n\nHow is {{ company | default: "your team" }} doing?',
            },
            {
              position: 2,
              delay_minutes: 2880,
              subject: null,
              body: 'Hi {{ first_name | default: "there" }}, just following up on my note.',
            },
          ],
        },
      }),
    )
  ).data;
  await unwrap(
    client.POST('/api/v1/sequences/{sequence}/publish', { params: { path: { sequence: sequence.id } } }),
  );
  log(`sequence ${sequence.id} published`);

  // 5. A campaign sending that sequence from the inbox, every day, all day (UTC); then activate it.
  const draft = (
    await unwrap(
      client.POST('/api/v1/campaigns', {
        body: {
          name: 'Quickstart campaign',
          sequence_id: sequence.id,
          inbox_ids: [inbox.id],
          schedule: {
            timezone: 'UTC',
            days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
            start_time: '00:00',
            end_time: '24:00',
          },
        },
      }),
    )
  ).data;
  const campaign = (
    await unwrap(
      client.PATCH('/api/v1/campaigns/{campaign}', {
        params: { path: { campaign: draft.id } },
        body: { status: 'active' },
      }),
    )
  ).data;
  log(`campaign ${campaign.id} ${campaign.status}`);

  // 6. Enroll every contact: the first step goes out on the next send tick.
  const enrollmentIds: number[] = [];
  for (const contact of contacts) {
    const { data } = await unwrap(
      client.POST('/api/v1/campaigns/{campaign}/enrollments', {
        params: {
          path: { campaign: campaign.id },
          header: { 'Idempotency-Key': `${run}-enroll-${contact.id}` },
        },
        body: { contact_id: contact.id },
      }),
    );
    enrollmentIds.push(data.id);
  }
  log(`enrollments ${enrollmentIds.join(', ')}`);

  // 7. Lists: a filter, then every enrollment of the campaign, two to a page, following next_cursor.
  const listedByEmail = (
    await unwrap(client.GET('/api/v1/contacts', { params: { query: { email: first.email } } }))
  ).data;
  const pagedEnrollmentIds: number[] = [];
  for await (const enrollment of items(client, '/api/v1/enrollments', {
    query: { campaign_id: campaign.id, per_page: 2 },
  })) {
    pagedEnrollmentIds.push(enrollment.id);
  }
  let enrollmentPages = 0;
  for await (const _page of pages(client, '/api/v1/enrollments', {
    query: { campaign_id: campaign.id, per_page: 2 },
  })) {
    enrollmentPages += 1;
  }
  log(`listed ${pagedEnrollmentIds.length} enrollments in ${enrollmentPages} pages`);

  // 8. Errors arrive as ApiError, carrying the service's envelope: here a contact without an address.
  let refused: QuickstartResult['refused'] | undefined;
  try {
    await unwrap(client.POST('/api/v1/contacts', { body: { email: '', first_name: 'Nobody' } }));
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    refused = { status: err.status, type: err.type, field: err.field, message: err.message };
    log(`refused: ${err.status} ${err.type} (${err.field ?? '-'}): ${err.message}`);
  }
  if (!refused) throw new Error('the service accepted a contact without an email address');

  return {
    workspaceId: me.workspace_id,
    inboxId: inbox.id,
    contacts,
    replay,
    sequenceId: sequence.id,
    campaignId: campaign.id,
    campaignStatus: campaign.status,
    enrollmentIds,
    listedByEmail,
    pagedEnrollmentIds,
    enrollmentPages,
    refused,
  };
}

/** A network failure of fetch (refused, unknown host, reset): not an answer of the service. */
export function unreachable(err: unknown): boolean {
  const e = err as { name?: unknown; message?: unknown; cause?: { code?: unknown } };
  return e?.name === 'TypeError' && e.message === 'fetch failed';
}

/** Where the service is: OUTREACH_URL, else the service's own default (PUBLIC_URL, else localhost:PORT). */
export function serviceUrl(env: Record<string, string | undefined>): string {
  return (env.OUTREACH_URL || env.PUBLIC_URL || `http://localhost:${env.PORT || 3000}`).replace(/\/+$/, '');
}

// Run directly: node sdk/typescript/dist/examples/quickstart.js (npm run sdk:example).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const token = process.env.OUTREACH_KEY;
  if (!token) {
    console.error('Set OUTREACH_KEY to a workspace key (npm run cli -- demo prints one).');
    process.exit(2);
  }
  const baseUrl = serviceUrl(process.env);
  quickstart({
    baseUrl,
    token,
    log: (line) => console.log(line),
  }).catch((err: unknown) => {
    console.error(
      err instanceof ApiError
        ? `${err.status} ${err.type}: ${err.message}`
        : unreachable(err)
          ? `cannot reach the service at ${baseUrl}: is it running? Set OUTREACH_URL to its address (or PORT to its port).`
          : err,
    );
    process.exit(1);
  });
}
