/**
 * The seed module: rows written straight into the tables (inbox with sealed settings, published
 * sequence, active campaign, contacts, due enrollments), so the tests that need them depend only on
 * the schema, not on the API that would create them. Every helper takes the file's query function
 * (`q` from ./db.ts or ./app.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Query } from './db.js';
import { waitFor } from './wait.js';

export interface SeedStep {
  subject: string | null;
  body: string;
  delay_minutes?: number;
  variants?: Array<{ subject: string | null; body: string }>;
}

export interface SeedCampaignInput {
  workspaceId: string;
  smtpPort: number;
  imapPort?: number;
  imapUser?: string;
  imapPassword?: string;
  inboxes?: number;
  inboxDailyLimit?: number;
  domain?: string;
  campaignDailyLimit?: number | null;
  schedule?: { timezone: string; days: string[]; start_time: string; end_time: string };
  steps?: SeedStep[];
  stopOnReply?: boolean;
  /** Issue 16 campaign fields. */
  startAt?: Date | null;
  sendInContactTimezone?: boolean;
  stopOnReplyScope?: 'contact' | 'domain';
}

export interface SeededCampaign {
  campaignId: number;
  sequenceId: number;
  inboxIds: string[];
  inboundSecrets: string[];
}

export const ALL_DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

export async function seedCampaign(query: Query, input: SeedCampaignInput): Promise<SeededCampaign> {
  const { sealSettings, hashInboundSecret, newInboundSecret } =
    await import('../../src/modules/inboxes/inbox-credentials.js');
  const domain = input.domain ?? `acme-${Math.random().toString(36).slice(2, 8)}.test`;
  const inboxIds: string[] = [];
  const inboundSecrets: string[] = [];
  for (let i = 0; i < (input.inboxes ?? 1); i++) {
    const secret = newInboundSecret();
    // The id is chosen here: sealed settings are bound to their inbox's id.
    const id = randomUUID();
    const smtp = sealSettings(
      {
        host: '127.0.0.1',
        port: input.smtpPort,
        secure: false,
        user: null,
        password: null,
      },
      id,
      'smtp',
    );
    const imap = input.imapPort
      ? sealSettings(
          {
            host: '127.0.0.1',
            port: input.imapPort,
            secure: false,
            user: input.imapUser ?? null,
            password: input.imapPassword ?? null,
          },
          id,
          'imap',
        )
      : null;
    const rows = (await query(
      `INSERT INTO inboxes (id, workspace_id, email, display_name, domain, daily_limit, smtp_sealed, imap_sealed, inbound_secret_hash)
       VALUES ($9, $1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
      [
        input.workspaceId,
        `sender${i + 1}@${domain}`,
        `Sam Sender ${i + 1}`,
        domain,
        input.inboxDailyLimit ?? 1000,
        smtp,
        imap,
        hashInboundSecret(secret),
        id,
      ],
    )) as Array<{ id: string }>;
    inboxIds.push(rows[0].id);
    inboundSecrets.push(secret);
  }
  const steps = (
    input.steps ?? [
      { subject: 'Hello {{ first_name }}', body: 'Hi {{ first_name }}, step one.' },
      { subject: null, body: 'Following up, {{ first_name }}.' },
    ]
  ).map((s, i) => ({
    position: i + 1,
    delay_minutes: s.delay_minutes ?? 0,
    subject: s.subject,
    body: s.body,
    ...(s.variants ? { variants: s.variants } : {}),
  }));
  const [seq] = (await query(
    `INSERT INTO sequences (workspace_id, name, status, steps, published_at) VALUES ($1, 'Seq', 'published', $2, now()) RETURNING id`,
    [input.workspaceId, JSON.stringify(steps)],
  )) as Array<{ id: number }>;
  const schedule = input.schedule ?? {
    timezone: 'UTC',
    days: ALL_DAYS,
    start_time: '00:00',
    end_time: '24:00',
  };
  const [campaign] = (await query(
    `INSERT INTO campaigns (workspace_id, name, sequence_id, status, inbox_ids, schedule, daily_limit, stop_on_reply,
       activated_at, start_at, send_in_contact_timezone, stop_on_reply_scope)
     VALUES ($1, 'Campaign', $2, 'active', $3, $4, $5, $6, now(), $7, $8, $9) RETURNING id`,
    [
      input.workspaceId,
      seq.id,
      inboxIds,
      JSON.stringify(schedule),
      input.campaignDailyLimit ?? null,
      input.stopOnReply ?? true,
      input.startAt ?? null,
      input.sendInContactTimezone ?? false,
      input.stopOnReplyScope ?? 'contact',
    ],
  )) as Array<{ id: number }>;
  return { campaignId: Number(campaign.id), sequenceId: Number(seq.id), inboxIds, inboundSecrets };
}

export async function seedContact(
  query: Query,
  workspaceId: string,
  email: string,
  fields: {
    first_name?: string;
    company?: string;
    custom_fields?: Record<string, string>;
    timezone?: string;
  } = {},
): Promise<number> {
  const [row] = (await query(
    `INSERT INTO contacts (workspace_id, email, first_name, company, custom_fields, timezone) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
    [
      workspaceId,
      email,
      fields.first_name ?? null,
      fields.company ?? null,
      JSON.stringify(fields.custom_fields ?? {}),
      fields.timezone ?? null,
    ],
  )) as Array<{ id: number }>;
  return Number(row.id);
}

/** An active enrollment due now (or at `dueAt`). */
export async function seedEnrollment(
  query: Query,
  workspaceId: string,
  campaignId: number,
  contactId: number,
  dueAt: Date = new Date(Date.now() - 1000),
): Promise<number> {
  const [row] = (await query(
    `INSERT INTO enrollments (workspace_id, campaign_id, contact_id, status, current_step, next_step_at)
     VALUES ($1, $2, $3, 'active', 0, $4) RETURNING id`,
    [workspaceId, campaignId, contactId, dueAt],
  )) as Array<{ id: number }>;
  return Number(row.id);
}

/** A first step due now and a second ten hours later: the first is sent, the enrollment stays active. */
export const FIRST_STEP_NOW: SeedStep[] = [
  { subject: 'Hello {{ first_name }}', body: 'Step one' },
  { subject: null, body: 'Step two', delay_minutes: 600 },
];

/** `seedCampaign`'s IMAP fields for an IMAP server's user, reached at `port` (a proxy in front of it, say). */
export const imapOf = (server: { port: number; user: string; password: string }, port = server.port) => ({
  imapPort: port,
  imapUser: server.user,
  imapPassword: server.password,
});

/** A contact enrolled by `sendFirstSteps`, and the Message-ID of the first step it was sent. */
export interface FirstSend {
  contactId: number;
  enrollmentId: number;
  messageId: string;
}

/**
 * Per name, a contact `<name>@example.com` (first name `name`) enrolled in the campaign, due now; then
 * waits until the workspace has as many sent messages as `into` has entries and fills in each one's
 * Message-ID. The running app's engine does the sending.
 */
export async function sendFirstSteps(
  query: Query,
  workspaceId: string,
  campaignId: number,
  names: string[],
  into: Map<string, FirstSend>,
): Promise<void> {
  for (const who of names) {
    const contactId = await seedContact(query, workspaceId, `${who}@example.com`, { first_name: who });
    const enrollmentId = await seedEnrollment(query, workspaceId, campaignId, contactId);
    into.set(who, { contactId, enrollmentId, messageId: '' });
  }
  const rows = await waitFor(async () => {
    const found = (await query(
      `SELECT to_address, message_id FROM messages WHERE workspace_id = $1 AND status = 'sent'`,
      [workspaceId],
    )) as Array<{ to_address: string; message_id: string }>;
    return found.length === into.size ? found : null;
  }, 'first steps sent');
  for (const r of rows) into.get(r.to_address.split('@')[0])!.messageId = r.message_id;
}

/**
 * The inbound tests' campaign: its inbox sends to `smtpPort` and reads `imap`'s user (at `imapPort`,
 * default the server's own), on `domain`, with a first step due now and a second later (FIRST_STEP_NOW).
 */
export function seedInboundCampaign(
  query: Query,
  workspaceId: string,
  smtpPort: number,
  imap: { port: number; user: string; password: string },
  domain: string,
  imapPort?: number,
): Promise<SeededCampaign> {
  return seedCampaign(query, {
    workspaceId,
    smtpPort,
    ...imapOf(imap, imapPort),
    domain,
    steps: FIRST_STEP_NOW,
  });
}
