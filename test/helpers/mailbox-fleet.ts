/**
 * Many real mailboxes for the IMAP scale tests: one inbox per Dovecot user in one active campaign,
 * and per inbox a contact, an enrollment and the outbound message a reply answers (rows seeded
 * directly, enrollments not due, so nothing is sent). `reply` builds the contact's answer.
 */
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { seedCampaign } from './seed.js';

export interface FleetMailbox {
  inboxId: string;
  user: string;
  email: string;
}

export interface FleetSend {
  mailbox: FleetMailbox;
  contactEmail: string;
  enrollmentId: number;
  messageId: string;
}

/** One inbox per IMAP user, all in one active campaign (returned with its id). */
export async function seedFleet(
  db: DataSource,
  input: { workspaceId: string; smtpPort: number; imapPort: number; users: string[]; password: string },
): Promise<{ campaignId: number; mailboxes: FleetMailbox[] }> {
  const { sealSettings } = await import('../../src/modules/inboxes/inbox-credentials.js');
  const c = await seedCampaign((sql, params) => db.query(sql, params), {
    workspaceId: input.workspaceId,
    smtpPort: input.smtpPort,
    inboxes: input.users.length,
    domain: 'fleet.test',
  });
  const mailboxes: FleetMailbox[] = [];
  for (const [i, inboxId] of c.inboxIds.entries()) {
    const user = input.users[i];
    const imap = sealSettings(
      { host: '127.0.0.1', port: input.imapPort, secure: false, user, password: input.password },
      inboxId,
      'imap',
    );
    await db.query('UPDATE inboxes SET imap_sealed = $2 WHERE id = $1', [inboxId, imap]);
    mailboxes.push({ inboxId, user, email: `sender${i + 1}@fleet.test` });
  }
  return { campaignId: c.campaignId, mailboxes };
}

/** Per mailbox: a new contact, its enrollment (not due) and the sent message it will answer. */
export async function seedSends(
  db: DataSource,
  workspaceId: string,
  campaignId: number,
  mailboxes: FleetMailbox[],
  tag: string,
): Promise<FleetSend[]> {
  const sends: FleetSend[] = [];
  for (const [i, mailbox] of mailboxes.entries()) {
    const contactEmail = `${tag}-${i}@example.com`;
    const [contact] = (await db.query(
      'INSERT INTO contacts (workspace_id, email, first_name) VALUES ($1, $2, $3) RETURNING id',
      [workspaceId, contactEmail, tag],
    )) as Array<{ id: number }>;
    const [enrollment] = (await db.query(
      `INSERT INTO enrollments (workspace_id, campaign_id, contact_id, status, current_step, next_step_at)
       VALUES ($1, $2, $3, 'active', 1, now() + interval '30 days') RETURNING id`,
      [workspaceId, campaignId, contact.id],
    )) as Array<{ id: number }>;
    const [thread] = (await db.query(
      `INSERT INTO threads (workspace_id, inbox_id, contact_id, enrollment_id, campaign_id, subject, message_count, last_message_at)
       VALUES ($1, $2, $3, $4, $5, 'Hello', 1, now()) RETURNING id`,
      [workspaceId, mailbox.inboxId, contact.id, enrollment.id, campaignId],
    )) as Array<{ id: number }>;
    const messageId = `<${randomUUID()}@fleet.test>`;
    await db.query(
      `INSERT INTO messages (workspace_id, thread_id, enrollment_id, direction, kind, from_address, to_address,
         subject, body, message_id, status, sent_at, step_position)
       VALUES ($1, $2, $3, 'outbound', 'email', $4, $5, 'Hello', 'Hi', $6, 'sent', now(), 1)`,
      [workspaceId, thread.id, enrollment.id, mailbox.email, contactEmail, messageId],
    );
    sends.push({ mailbox, contactEmail, enrollmentId: Number(enrollment.id), messageId });
  }
  return sends;
}

/** The contact's reply to `send` (its own Message-ID, In-Reply-To the sent message). */
export function reply(send: FleetSend): string {
  return [
    `From: ${send.contactEmail}`,
    `To: ${send.mailbox.email}`,
    'Subject: Re: Hello',
    `Message-ID: <reply-${randomUUID()}@example.com>`,
    `In-Reply-To: ${send.messageId}`,
    `References: ${send.messageId}`,
    'Content-Type: text/plain; charset=utf-8',
    '',
    'Sounds good, call me.',
    '',
  ].join('\r\n');
}

/** Runs `fn` over `items`, `concurrency` at a time. */
export async function eachLimit<T>(
  items: T[],
  concurrency: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
}
