/**
 * The send engine's address gate (CONTRACT §24) with the real engine and a real SMTP sink: under each
 * campaign `verification` setting exactly the right contacts get mail, the others end `skipped` with
 * `address_invalid` / `address_risky`, no message, counted in the step analytics; a `pending` contact
 * waits for its verdict and is sent once it becomes valid or its 10 minutes have passed.
 */
import { api, createTenant, useApp, app, q, all, FAST_SENDING, type TestTenant } from '../helpers/app.js';
import { startSmtpSink, type SmtpSink } from '../helpers/mail-servers.js';
import { seedCampaign, seedEnrollment, FIRST_STEP_NOW } from '../helpers/seed.js';
import { waitFor } from '../helpers/wait.js';
import { postInThread, publishedStep } from '../helpers/reactions.js';

describe('sending respects address verdicts (real engine, real SMTP)', () => {
  // Verdicts are written by the test (due time null, so the background check leaves them alone).
  useApp({ env: { ...FAST_SENDING, VERIFY_ADDRESSES: 'true' } });
  let sink: SmtpSink;
  let t: TestTenant;
  const run = Math.random().toString(36).slice(2, 8);
  const mailsTo = (email: string) => sink.received.filter((m) => m.to.some((x) => x.toLowerCase() === email));

  beforeAll(async () => {
    sink = await startSmtpSink();
    t = await createTenant(app);
  });
  afterAll(async () => {
    await sink.close();
  });

  const contact = async (status: string, name: string): Promise<{ id: number; email: string }> => {
    const email = `${name}-${run}@example.com`;
    const [row] = await all<{ id: number }>(
      `INSERT INTO contacts (workspace_id, email, first_name, verification_status, verification_due_at)
       VALUES ($1, $2, 'Pat', $3, NULL) RETURNING id`,
      [t.workspaceId, email, status],
    );
    return { id: Number(row.id), email };
  };
  const enrollmentOf = async (id: number) =>
    (
      await all<{ status: string; stop_reason: string | null; next_step_at: Date | null }>(
        'SELECT status, stop_reason, next_step_at FROM enrollments WHERE id = $1',
        [id],
      )
    )[0];
  const messagesOf = async (id: number) =>
    (await all<{ n: number }>('SELECT count(*)::int AS n FROM messages WHERE enrollment_id = $1', [id]))[0].n;

  it('the campaign API takes, shows and validates `verification`', async () => {
    const created = await api(app, t.token).post('/campaigns').send({ name: 'v' });
    expect(created.status).toBe(201);
    expect(created.body.data.verification).toBe('skip_invalid');
    const id = created.body.data.id as number;
    const patched = await api(app, t.token).patch(`/campaigns/${id}`).send({ verification: 'skip_risky' });
    expect(patched.status).toBe(200);
    expect(patched.body.data.verification).toBe('skip_risky');
    expect((await api(app, t.token).get(`/campaigns/${id}`)).body.data.verification).toBe('skip_risky');
    for (const bad of ['skip', null, 3]) {
      const res = await api(app, t.token).patch(`/campaigns/${id}`).send({ verification: bad });
      expect({ bad, status: res.status, field: res.body.error?.field }).toEqual({
        bad,
        status: 422,
        field: 'verification',
      });
    }
    const off = await api(app, t.token).post('/campaigns').send({ name: 'v2', verification: 'off' });
    expect(off.body.data.verification).toBe('off');
  });

  it('skip_invalid, skip_risky and off send to exactly the right verdicts', async () => {
    const settings = ['skip_invalid', 'skip_risky', 'off'] as const;
    const expected: Record<(typeof settings)[number], Record<string, string | null>> = {
      skip_invalid: { valid: null, invalid: 'address_invalid', risky: null, unknown: null },
      skip_risky: { valid: null, invalid: 'address_invalid', risky: 'address_risky', unknown: null },
      off: { valid: null, invalid: null, risky: null, unknown: null },
    };
    const cases: Array<{
      setting: string;
      verdict: string;
      email: string;
      enrollment: number;
      campaign: number;
    }> = [];
    for (const setting of settings) {
      const c = await seedCampaign(q, {
        workspaceId: t.workspaceId,
        smtpPort: sink.port,
        steps: FIRST_STEP_NOW,
      });
      await q('UPDATE campaigns SET verification = $1 WHERE id = $2', [setting, c.campaignId]);
      for (const verdict of Object.keys(expected[setting])) {
        const k = await contact(verdict, `${setting}-${verdict}`);
        const enrollment = await seedEnrollment(q, t.workspaceId, c.campaignId, k.id);
        cases.push({ setting, verdict, email: k.email, enrollment, campaign: c.campaignId });
      }
    }
    const sendable = cases.filter((c) => expected[c.setting as 'off'][c.verdict] === null);
    await waitFor(
      async () => sendable.every((c) => mailsTo(c.email).length === 1),
      'the sendable ones mailed',
    );
    await waitFor(
      async () =>
        (
          await all<{ n: number }>(
            `SELECT count(*)::int AS n FROM enrollments WHERE id = ANY($1) AND status = 'skipped'`,
            [cases.map((c) => c.enrollment)],
          )
        )[0].n ===
        cases.length - sendable.length,
      'the others skipped',
    );
    for (const c of cases) {
      const reason = expected[c.setting as 'off'][c.verdict];
      const e = await enrollmentOf(c.enrollment);
      if (reason === null) {
        expect({ ...c, status: e.status, mails: mailsTo(c.email).length }).toEqual({
          ...c,
          status: 'active',
          mails: 1,
        });
      } else {
        expect({ ...c, status: e.status, stop_reason: e.stop_reason, next: e.next_step_at }).toEqual({
          ...c,
          status: 'skipped',
          stop_reason: reason,
          next: null,
        });
        expect(mailsTo(c.email)).toHaveLength(0);
        expect(await messagesOf(c.enrollment)).toBe(0);
        const events = await all<{
          data: { enrollment: { id: number; status: string; stop_reason: string } };
        }>(
          `SELECT data FROM events WHERE workspace_id = $1 AND type = 'enrollment.stopped'
             AND (data->'enrollment'->>'id')::bigint = $2`,
          [t.workspaceId, c.enrollment],
        );
        expect(events.map((e) => e.data.enrollment)).toEqual([
          expect.objectContaining({ id: c.enrollment, status: 'skipped', stop_reason: reason }),
        ]);
      }
    }
    // The step counters count each skip once, under the skipped step.
    const counted = await all<{ campaign_id: number; skipped_invalid: number; skipped_risky: number }>(
      `SELECT campaign_id, sum(skipped_invalid)::int AS skipped_invalid, sum(skipped_risky)::int AS skipped_risky
       FROM step_metrics WHERE workspace_id = $1 GROUP BY campaign_id`,
      [t.workspaceId],
    );
    const byCampaign = (setting: string) => {
      const id = cases.find((c) => c.setting === setting)!.campaign;
      const row = counted.find((r) => Number(r.campaign_id) === id);
      return { skipped_invalid: row?.skipped_invalid ?? 0, skipped_risky: row?.skipped_risky ?? 0 };
    };
    expect(byCampaign('skip_invalid')).toEqual({ skipped_invalid: 1, skipped_risky: 0 });
    expect(byCampaign('skip_risky')).toEqual({ skipped_invalid: 1, skipped_risky: 1 });
    expect(byCampaign('off')).toEqual({ skipped_invalid: 0, skipped_risky: 0 });
    // GET /analytics/steps shows them, under the skipped step (the first), no variant.
    const riskyCampaign = cases.find((c) => c.setting === 'skip_risky')!.campaign;
    const steps = await api(app, t.token).get(`/analytics/steps?campaign_id=${riskyCampaign}`);
    expect(steps.status).toBe(200);
    expect(steps.body.data).toEqual([
      expect.objectContaining({
        step_position: 1,
        variant: null,
        sent: 0,
        skipped_invalid: 1,
        skipped_risky: 1,
      }),
      expect.objectContaining({
        step_position: 1,
        variant: 'A',
        sent: 2,
        skipped_invalid: 0,
        skipped_risky: 0,
      }),
    ]);
  });

  it('a pending contact waits for its verdict; sent once valid, or once its 10 minutes have passed', async () => {
    const c = await seedCampaign(q, {
      workspaceId: t.workspaceId,
      smtpPort: sink.port,
      steps: FIRST_STEP_NOW,
    });
    await q(`UPDATE campaigns SET verification = 'skip_risky' WHERE id = $1`, [c.campaignId]);
    const becomesValid = await contact('pending', 'pending-valid');
    const staysPending = await contact('pending', 'pending-late');
    const becomesInvalid = await contact('pending', 'pending-invalid');
    const e1 = await seedEnrollment(q, t.workspaceId, c.campaignId, becomesValid.id);
    const e2 = await seedEnrollment(q, t.workspaceId, c.campaignId, staysPending.id);
    const e3 = await seedEnrollment(q, t.workspaceId, c.campaignId, becomesInvalid.id);
    // Each is looked at and deferred by about a minute (still active, no message).
    await waitFor(async () => {
      const es = await Promise.all([e1, e2, e3].map(enrollmentOf));
      return es.every((e) => {
        const next = e.next_step_at?.getTime() ?? 0;
        // Past the claim (which leases it 10 minutes ahead), deferred by the gate: about a minute.
        return e.status === 'active' && next > Date.now() + 30_000 && next <= Date.now() + 61_000;
      });
    }, 'pending ones deferred');
    for (const e of [e1, e2, e3]) {
      const row = await enrollmentOf(e);
      expect(row.next_step_at!.getTime()).toBeLessThanOrEqual(Date.now() + 61_000);
      expect(await messagesOf(e)).toBe(0);
    }
    expect(mailsTo(becomesValid.email)).toHaveLength(0);

    // Verdicts arrive for two of them; the third's 10 minutes pass (its enrollment made 11 minutes ago).
    await q(`UPDATE contacts SET verification_status = 'valid' WHERE id = $1`, [becomesValid.id]);
    await q(`UPDATE contacts SET verification_status = 'invalid' WHERE id = $1`, [becomesInvalid.id]);
    await q(`UPDATE enrollments SET created_at = now() - interval '11 minutes' WHERE id = $1`, [e2]);
    await q(`UPDATE enrollments SET next_step_at = now() - interval '1 second' WHERE id = ANY($1)`, [
      [e1, e2, e3],
    ]);

    await waitFor(async () => mailsTo(becomesValid.email).length === 1, 'sent once valid');
    await waitFor(async () => mailsTo(staysPending.email).length === 1, 'sent after 10 minutes pending');
    await waitFor(async () => (await enrollmentOf(e3)).status === 'skipped', 'invalid verdict skipped');
    expect((await enrollmentOf(e3)).stop_reason).toBe('address_invalid');
    expect(mailsTo(becomesInvalid.email)).toHaveLength(0);
  });
  it('a subsequence enrollment meets the same gate: an address found invalid after the move is skipped, not mailed', async () => {
    const c = await seedCampaign(q, {
      workspaceId: t.workspaceId,
      smtpPort: sink.port,
      steps: FIRST_STEP_NOW,
    });
    const sub = await api(app, t.token)
      .post(`/campaigns/${c.campaignId}/subsequences`)
      .send({
        name: 'later',
        trigger: { type: 'category', categories: ['not_now'] },
        sequence_id: await publishedStep(t, 'A short note for later.'),
        start_after_days: 0,
      });
    expect(sub.status).toBe(201);
    const subId = sub.body.data.id as number;
    const k = await contact('valid', 'sub-gate');
    const enrollmentId = await seedEnrollment(q, t.workspaceId, c.campaignId, k.id);
    await waitFor(async () => mailsTo(k.email).length === 1, 'step 1 sent while the address was valid');
    // The sink can see the mail before the engine records it sent: wait for the record.
    const first = await waitFor(async () => {
      const [row] = await all<{ message_id: string }>(
        `SELECT message_id FROM messages WHERE enrollment_id = $1 AND status = 'sent'`,
        [enrollmentId],
      );
      return row ?? null;
    }, 'step 1 recorded sent');
    // A later check finds the mailbox gone; then the contact answers "not now".
    await q(
      `UPDATE contacts SET verification_status = 'invalid', verification_reasons = '{mailbox_unknown}' WHERE id = $1`,
      [k.id],
    );
    await postInThread(
      c,
      { contactId: k.id, enrollmentId, messageId: first.message_id },
      { from: k.email, body: 'Not right now, please get back to me later.' },
    );

    const moved = await waitFor(async () => {
      const [row] = await all<{ id: number; status: string; stop_reason: string | null }>(
        `SELECT id, status, stop_reason FROM enrollments WHERE parent_enrollment_id = $1`,
        [enrollmentId],
      );
      return row && row.status !== 'active' ? row : null;
    }, 'the subsequence enrollment decided');
    expect(moved).toMatchObject({ status: 'skipped', stop_reason: 'address_invalid' });
    expect(await messagesOf(Number(moved.id))).toBe(0);
    expect(mailsTo(k.email)).toHaveLength(1);
    // Counted under the subsequence's own step 1, apart from the campaign's.
    const steps = await api(app, t.token).get(
      `/analytics/steps?campaign_id=${c.campaignId}&subsequence_id=${subId}`,
    );
    expect(steps.status).toBe(200);
    expect(steps.body.data).toEqual([
      expect.objectContaining({ subsequence_id: subId, step_position: 1, sent: 0, skipped_invalid: 1 }),
    ]);
  });
});
