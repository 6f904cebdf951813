/**
 * Fixtures of the sequences-that-react tests (test/reactions/): a published sequence to branch into,
 * and mail in a campaign's thread posted to `POST /inbound/{inbox_id}` as the inbox's MTA pipe would
 * (a reply, an auto-reply), quoting the step it answers.
 */
import request from 'supertest';
import { app, q, type TestTenant } from './app.js';
import type { FirstSend, SeededCampaign } from './seed.js';
import type { SmtpSink } from './mail-servers.js';

/** A published sequence of one step (subject null: it answers in the thread). */
export async function publishedStep(
  t: TestTenant,
  body: string,
  subject: string | null = null,
): Promise<number> {
  const [row] = (await q(
    `INSERT INTO sequences (workspace_id, name, status, steps, published_at) VALUES ($1, 'Sub', 'published', $2, now()) RETURNING id`,
    [t.workspaceId, JSON.stringify([{ position: 1, delay_minutes: 0, subject, body }])],
  )) as Array<{ id: number }>;
  return Number(row.id);
}

let n = 0;

/**
 * Mail from `from` answering the step `to` in the campaign's thread, posted to the inbox's inbound
 * route (202). `headers` adds lines (an auto-reply's `Auto-Submitted`, a `Date`). Returns the posted
 * Message-ID and the route's answer body.
 */
export async function postInThread(
  c: SeededCampaign,
  to: FirstSend,
  mail: { from: string; body: string; subject?: string; headers?: string[] },
): Promise<{ messageId: string; answer: Record<string, unknown> }> {
  n += 1;
  const messageId = `<reply-${n}-${Date.now()}@example.com>`;
  const raw = [
    `From: ${mail.from}`,
    'To: sender@x.test',
    `Subject: ${mail.subject ?? 'Re: Hello'}`,
    ...(mail.headers ?? []),
    `Message-ID: ${messageId}`,
    `In-Reply-To: ${to.messageId}`,
    `References: ${to.messageId}`,
    'Content-Type: text/plain; charset=utf-8',
    '',
    mail.body,
    '',
  ].join('\r\n');
  const res = await request(app.getHttpServer())
    .post(`/api/v1/inbound/${c.inboxIds[0]}`)
    .set('Authorization', `Bearer ${c.inboundSecrets[0]}`)
    .set('Content-Type', 'message/rfc822')
    .send(raw);
  expect(res.status).toBe(202);
  return { messageId, answer: res.body as Record<string, unknown> };
}

/** What the sink received for `address`, in order. */
export const mailsTo = (sink: SmtpSink, address: string) =>
  sink.received.filter((m) => m.to.includes(address));
