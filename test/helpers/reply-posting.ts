/**
 * Replies to categorise, posted the way mail arrives: a workspace with its config and a seeded campaign,
 * a contact whose first step was sent (enrollment, thread and outbound message written straight into the
 * tables), and its reply posted to `POST /inbound/{inbox_id}`. Shared by the categorisation tests that
 * need many replies in several workspaces (fairness, the operator's AI caps).
 */
import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createTenant, type TestTenant } from './app.js';
import { seedCampaign, seedContact, type SeededCampaign } from './seed.js';

const FAR = new Date(Date.now() + 30 * 86_400_000);

export interface ReplyPosting {
  /** A new tenant whose workspace config is merged with `config`, and a campaign at `{tag}.test`. */
  workspace(config: Record<string, unknown>): Promise<{ t: TestTenant; c: SeededCampaign }>;
  /** A contact with step 1 sent, and a reply to it posted; the recorded reply's id. */
  reply(t: TestTenant, c: SeededCampaign, body: string): Promise<{ id: number; contactId: number }>;
  /** The reply's category and where it came from (both null until decided). */
  categoryOf(id: number): Promise<{ category: string | null; category_source: string | null }>;
}

/** `tag` names the test's addresses and domain; `app` is read when a helper is called (after boot). */
export function replyPosting(app: () => NestExpressApplication, tag: string): ReplyPosting {
  const q = (sql: string, params?: unknown[]): Promise<unknown> => app().get(DataSource).query(sql, params);
  const domain = `${tag}.test`;
  let counter = 0;

  return {
    async workspace(config) {
      const t = await createTenant(app());
      await q('UPDATE workspaces SET config = config || $2::jsonb WHERE id = $1', [
        t.workspaceId,
        JSON.stringify(config),
      ]);
      const c = await seedCampaign(q, { workspaceId: t.workspaceId, smtpPort: 1, domain });
      return { t, c };
    },

    async reply(t, c, body) {
      counter += 1;
      const email = `${tag}${counter}@example.com`;
      const contactId = await seedContact(q, t.workspaceId, email);
      const [enr] = (await q(
        `INSERT INTO enrollments (workspace_id, campaign_id, contact_id, status, current_step, next_step_at)
         VALUES ($1, $2, $3, 'active', 1, $4) RETURNING id`,
        [t.workspaceId, c.campaignId, contactId, FAR],
      )) as Array<{ id: number }>;
      const [thread] = (await q(
        `INSERT INTO threads (workspace_id, inbox_id, contact_id, enrollment_id, campaign_id, subject, message_count, last_message_at)
         VALUES ($1, $2, $3, $4, $5, 'Hello', 1, now()) RETURNING id`,
        [t.workspaceId, c.inboxIds[0], contactId, enr.id, c.campaignId],
      )) as Array<{ id: number }>;
      const messageId = `<${tag}-${counter}-${Date.now()}@${domain}>`;
      await q(
        `INSERT INTO messages (workspace_id, thread_id, enrollment_id, direction, kind, from_address, to_address,
           subject, body, message_id, status, sent_at, step_position, variant)
         VALUES ($1, $2, $3, 'outbound', 'email', $6, $4, 'Hello', 'Hi', $5, 'sent', now(), 1, 'A')`,
        [t.workspaceId, thread.id, enr.id, email, messageId, `sender1@${domain}`],
      );
      const res = await request(app().getHttpServer())
        .post(`/api/v1/inbound/${c.inboxIds[0]}`)
        .set('Authorization', `Bearer ${c.inboundSecrets[0]}`)
        .set('Content-Type', 'message/rfc822')
        .send(
          [
            `From: ${email}`,
            `To: sender1@${domain}`,
            'Subject: Re: Hello',
            `Message-ID: <r-${counter}-${Math.random().toString(36).slice(2)}@example.com>`,
            `In-Reply-To: ${messageId}`,
            '',
            body,
            '',
          ].join('\r\n'),
        );
      if (res.status !== 202) throw new Error(`inbound answered ${res.status}: ${res.text}`);
      return { id: Number(res.body.data.message_id), contactId };
    },

    async categoryOf(id) {
      const rows = (await q('SELECT category, category_source FROM messages WHERE id = $1', [id])) as Array<{
        category: string | null;
        category_source: string | null;
      }>;
      return rows[0];
    },
  };
}
