/**
 * Out-of-office holds (CONTRACT §23) on the real stack: the running engine sends step 1 to the SMTP
 * sink; an away auto-reply posted to `POST /inbound/{inbox_id}` holds step 2 until the first working
 * day after the return date it names (held_until, held_reason, enrollment.held); the engine does not
 * send it before (the due time is the hold), and sends it once the clock reaches the hold (the clock is
 * moved by moving the hold into the past: never a sleep of days).
 */
import { app, createTenant, FAST_SENDING, one, q, useApp } from '../helpers/app.js';
import { startSmtpSink, type SmtpSink } from '../helpers/mail-servers.js';
import {
  FIRST_STEP_NOW,
  seedCampaign,
  sendFirstSteps,
  type FirstSend,
  type SeededCampaign,
} from '../helpers/seed.js';
import { mailsTo as sinkMailsTo, postInThread } from '../helpers/reactions.js';
import { waitFor } from '../helpers/wait.js';

describe('out-of-office holds', () => {
  let sink: SmtpSink;
  beforeAll(async () => {
    sink = await startSmtpSink();
  });
  useApp({ env: FAST_SENDING });
  afterAll(async () => {
    await sink.close();
  });

  const autoReply = async (
    c: SeededCampaign,
    to: FirstSend,
    from: string,
    subject: string,
    body: string,
    date: Date,
  ) => {
    const { answer } = await postInThread(c, to, {
      from,
      subject,
      body,
      headers: [`Date: ${date.toUTCString()}`, 'Auto-Submitted: auto-replied'],
    });
    const data = answer.data as { kind?: string } | undefined;
    expect(data?.kind ?? answer.kind).toBe('auto_reply');
  };
  const mailsTo = (address: string) => sinkMailsTo(sink, address);
  const row = (id: number) =>
    one<{ held_until: Date | null; held_reason: string | null; next_step_at: Date | null; status: string }>(
      'SELECT held_until, held_reason, next_step_at, status FROM enrollments WHERE id = $1',
      [id],
    );

  it('holds step 2 until the first working day after the return date; not sent before, sent after', async () => {
    const t = await createTenant(app);
    const c = await seedCampaign(q, {
      workspaceId: t.workspaceId,
      smtpPort: sink.port,
      steps: FIRST_STEP_NOW,
    });
    const sent = new Map<string, FirstSend>();
    await sendFirstSteps(q, t.workspaceId, c.campaignId, ['oooann'], sent);
    const ann = sent.get('oooann')!;
    // Step 2 due at once: only the hold keeps it back.
    const at = new Date();
    const replyDate = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate(), 9));
    const back = new Date(replyDate.getTime() + 10 * 86_400_000);
    const backDay = back.toISOString().slice(0, 10);
    const months = [
      'January',
      'February',
      'March',
      'April',
      'May',
      'June',
      'July',
      'August',
      'September',
      'October',
      'November',
      'December',
    ];
    await q("UPDATE enrollments SET next_step_at = now() + interval '2 seconds' WHERE id = $1", [
      ann.enrollmentId,
    ]);
    await autoReply(
      c,
      ann,
      'oooann@example.com',
      'Out of office',
      `Thank you for your email. I am out of the office and back on ${back.getUTCDate()} ${months[back.getUTCMonth()]} ${back.getUTCFullYear()}.`,
      replyDate,
    );
    const held = await row(ann.enrollmentId);
    const expected = new Date(`${backDay}T00:00:00Z`);
    do expected.setUTCDate(expected.getUTCDate() + 1);
    while (expected.getUTCDay() === 0 || expected.getUTCDay() === 6);
    expect(held.held_reason).toBe('out_of_office');
    expect(new Date(held.held_until!).toISOString()).toBe(expected.toISOString());
    expect(new Date(held.next_step_at!).toISOString()).toBe(expected.toISOString());
    const event = await one<{ data: Record<string, unknown> }>(
      `SELECT data FROM events WHERE workspace_id = $1 AND type = 'enrollment.held'`,
      [t.workspaceId],
    );
    expect(event.data).toEqual({
      enrollment_id: ann.enrollmentId,
      contact_id: ann.contactId,
      campaign_id: c.campaignId,
      held_until: expected.toISOString(),
      reason: 'out_of_office',
    });
    // Well past the step's own due time, many ticks: nothing sent.
    await new Promise((r) => setTimeout(r, 3000));
    expect(mailsTo('oooann@example.com')).toHaveLength(1);
    // The clock reaches the hold.
    await q(`UPDATE enrollments SET held_until = now(), next_step_at = now() WHERE id = $1`, [
      ann.enrollmentId,
    ]);
    await waitFor(async () => mailsTo('oooann@example.com')[1] ?? null, 'step 2 sent after the hold');
  });

  it('without a date holds out_of_office_hold_days (default 3); 0 turns it off; other auto-replies change nothing', async () => {
    const t = await createTenant(app);
    const c = await seedCampaign(q, {
      workspaceId: t.workspaceId,
      smtpPort: sink.port,
      steps: FIRST_STEP_NOW,
    });
    const sent = new Map<string, FirstSend>();
    await sendFirstSteps(q, t.workspaceId, c.campaignId, ['ooob', 'oooc', 'oood'], sent);
    const now = new Date();
    await autoReply(
      c,
      sent.get('ooob')!,
      'ooob@example.com',
      'Abwesenheitsnotiz',
      'Ich bin derzeit nicht im Büro.',
      now,
    );
    const b = await row(sent.get('ooob')!.enrollmentId);
    expect(b.held_reason).toBe('out_of_office');
    const days = (new Date(b.held_until!).getTime() - now.getTime()) / 86_400_000;
    expect(days).toBeGreaterThan(2.99);
    expect(days).toBeLessThan(3.01);

    await autoReply(
      c,
      sent.get('oooc')!,
      'oooc@example.com',
      'Automatic reply',
      'We received your request; ticket #4411 was opened.',
      now,
    );
    expect((await row(sent.get('oooc')!.enrollmentId)).held_until).toBeNull();

    await q(
      `UPDATE workspaces SET config = config || '{"out_of_office_hold_days": 0}'::jsonb WHERE id = $1`,
      [t.workspaceId],
    );
    await autoReply(
      c,
      sent.get('oood')!,
      'oood@example.com',
      'Out of office',
      'I am on vacation with limited access to email.',
      now,
    );
    expect((await row(sent.get('oood')!.enrollmentId)).held_until).toBeNull();
  });

  it('an away notice from another address than the one mailed holds nothing', async () => {
    const t = await createTenant(app);
    const c = await seedCampaign(q, {
      workspaceId: t.workspaceId,
      smtpPort: sink.port,
      steps: FIRST_STEP_NOW,
    });
    const sent = new Map<string, FirstSend>();
    await sendFirstSteps(q, t.workspaceId, c.campaignId, ['oooe'], sent);
    await autoReply(
      c,
      sent.get('oooe')!,
      'assistant@elsewhere.test',
      'Out of office',
      'I am on vacation with limited access to email.',
      new Date(),
    );
    const e = await row(sent.get('oooe')!.enrollmentId);
    expect(e.held_until).toBeNull();
    expect(e.held_reason).toBeNull();
  });
});
