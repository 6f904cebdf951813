/**
 * What one reply costs PostgreSQL: the statements `IngestionService.ingest` issues for a person's
 * reply to a sent step, counted at the pg client (an AsyncLocalStorage scope around each ingest, so
 * the app's own loops running meanwhile are not counted). A budget, so that a change that adds round
 * trips to the hot path of every inbound mail shows here.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { jest } from '@jest/globals';
import pg from 'pg';
import { IngestionService } from '../../src/modules/inbound/ingestion.service.js';
import { createTenant, useApp, app, q, one, FAST_SENDING, enrollment } from '../helpers/app.js';
import type { TestTenant } from '../helpers/app.js';
import type { WorkspaceId } from '../../src/common/tenant/workspace-id.js';
import { startSmtpSink, type SmtpSink } from '../helpers/mail-servers.js';
import { sendFirstSteps, seedInboundCampaign, type FirstSend } from '../helpers/seed.js';

const REPLIES = 10;
/**
 * The statements of one reply: the original looked up; then in one transaction the lock on its
 * Message-ID (lock_timeout and the advisory lock), the duplicate check, the message with its thread's
 * counters, the campaign's reply policy, the enrollment stopped, the contact's stage, the daily and
 * step counters, the message read back for the event, the event with its NOTIFY; BEGIN and COMMIT.
 * It was 16 before the message and its thread, and the event and its NOTIFY, became one statement each.
 */
const BUDGET = 14;

describe('statements per reply', () => {
  useApp({ env: FAST_SENDING });
  let sink: SmtpSink;
  let t: TestTenant;
  const sent = new Map<string, FirstSend>();
  let inbox: { id: string; workspaceId: WorkspaceId; email: string };

  beforeAll(async () => {
    sink = await startSmtpSink();
    t = await createTenant(app);
    const c = await seedInboundCampaign(
      q,
      t.workspaceId,
      sink.port,
      { port: 1, user: 'nobody', password: 'x' },
      'stmt.test',
    );
    await sendFirstSteps(
      q,
      t.workspaceId,
      c.campaignId,
      Array.from({ length: REPLIES }, (_, i) => `p${i}`),
      sent,
    );
    inbox = await one(
      `SELECT id, workspace_id AS "workspaceId", email FROM inboxes WHERE workspace_id = $1`,
      [t.workspaceId],
    );
  }, 60_000);
  afterAll(async () => {
    await sink?.close();
  });

  it('a reply to a sent step is recorded in a bounded number of statements', async () => {
    const scope = new AsyncLocalStorage<string[]>();
    const original = pg.Client.prototype.query;
    jest.spyOn(pg.Client.prototype, 'query').mockImplementation(function (
      this: pg.Client,
      ...args: unknown[]
    ) {
      const texts = scope.getStore();
      if (texts) {
        const a = args[0] as string | { text: string };
        texts.push(typeof a === 'string' ? a : a.text);
      }
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    } as never);
    const ingestion = app.get(IngestionService);
    const counts: number[] = [];
    for (const [who, s] of sent) {
      const raw = Buffer.from(
        [
          `From: ${who} <${who}@example.com>`,
          `To: ${inbox.email}`,
          'Subject: Re: Hello',
          `Message-ID: <r-${who}-${Date.now()}@example.com>`,
          `In-Reply-To: ${s.messageId}`,
          'Content-Type: text/plain; charset=utf-8',
          '',
          'Sounds interesting, tell me more.',
          '',
        ].join('\r\n'),
      );
      const texts: string[] = [];
      await scope.run(texts, () => ingestion.ingest(inbox, raw));
      counts.push(texts.length);
      expect(await enrollment(s.enrollmentId)).toMatchObject({ status: 'stopped', stop_reason: 'replied' });
    }
    jest.restoreAllMocks();
    expect(counts).toEqual(Array.from({ length: REPLIES }, () => BUDGET));
    // Nothing was dropped on the way: each thread counts its reply, each reply has its one event.
    const threads = await q(
      `SELECT t.message_count, t.replied_at IS NOT NULL AS replied FROM threads t WHERE t.workspace_id = $1`,
      [t.workspaceId],
    );
    expect(threads).toEqual(Array.from({ length: REPLIES }, () => ({ message_count: 2, replied: true })));
    const events = await one<{ n: number }>(
      `SELECT count(*)::int AS n FROM events WHERE workspace_id = $1 AND type = 'email.replied'`,
      [t.workspaceId],
    );
    expect(events.n).toBe(REPLIES);
  });
});
