/**
 * Fault: an SMTP server that receives the whole message and then drops the connection without the
 * final reply to DATA (one server closes it, one resets it). It may have queued the mail: the
 * outcome is unknown, so the step must never be sent again (docs/trust/README.md "At most once, also when
 * SMTP misbehaves").
 *
 * Real processes: the service (`node dist/main.js`, APP_ROLE=all) sending through two such servers
 * (test/helpers/faults-smtp.ts) with a 3 s claim lease. The engine's retry delay for a send that
 * definitely did not happen (300 s) is stood in for by moving `next_step_at` to now; then the test
 * waits past the lease. Proves: every message was received exactly once; the message is `failed`
 * with `error` starting "outcome unknown"; the enrollment is paused with that note; resuming moves
 * on to the next step without resending the first.
 */
import { createFaultTenant, jsonClient } from '../helpers/faults-http.js';
import { sleep, startService, useProcesses, db, q } from '../helpers/processes.js';
import { startDropAfterDataServer, type DropAfterDataServer } from '../helpers/faults-smtp.js';
import { seedCampaign, seedContact, seedEnrollment } from '../helpers/seed.js';
import { waitFor } from '../helpers/wait.js';

const LEASE_SECONDS = 3;
const PER_SERVER = 2;

describe('fault: SMTP connection dropped after DATA', () => {
  const servers: DropAfterDataServer[] = [];
  useProcesses({ after: () => Promise.all(servers.map((s) => s.close())) });

  it('the step is never resent: message failed "outcome unknown", enrollment paused, resume moves on', async () => {
    const t = await createFaultTenant(db);
    const steps = [
      { subject: 'Hello {{ first_name }}', body: 'step-1 for {{ email }}' },
      { subject: null, body: 'step-2 for {{ email }}' },
    ];
    const setups: Array<{ server: DropAfterDataServer; campaignId: number; emails: string[] }> = [];
    for (const mode of ['close', 'reset'] as const) {
      const server = await startDropAfterDataServer(mode);
      servers.push(server);
      const c = await seedCampaign(q, { workspaceId: t.workspaceId, smtpPort: server.port, steps });
      const emails: string[] = [];
      for (let i = 0; i < PER_SERVER; i++) {
        const email = `drop-${mode}-${i}@example.com`;
        const contactId = await seedContact(q, t.workspaceId, email, { first_name: 'Dee' });
        await seedEnrollment(q, t.workspaceId, c.campaignId, contactId);
        emails.push(email);
      }
      setups.push({ server, campaignId: c.campaignId, emails });
    }
    const receivedBy = (server: DropAfterDataServer, email: string, step: number): number =>
      server.received.filter((m) => m.to.includes(email) && m.raw.includes(`step-${step} for ${email}`))
        .length;
    const settled = async (): Promise<boolean> => {
      const [{ n }] = (await db.query(
        `SELECT count(*)::int AS n FROM messages WHERE workspace_id = $1 AND status = 'sending'`,
        [t.workspaceId],
      )) as Array<{ n: number }>;
      return n === 0;
    };

    const service = await startService({
      role: 'all',
      env: {
        REDIS_PREFIX: `${process.env.REDIS_PREFIX}:smtp-drop`,
        SEND_LEASE_SECONDS: String(LEASE_SECONDS),
        SEND_TICK_MS: '100',
        SEND_MIN_GAP_SECONDS: '0',
      },
    });
    await waitFor(
      async () =>
        setups.every((s) => s.emails.every((e) => receivedBy(s.server, e, 1) >= 1)) && (await settled()),
      'every step 1 received (and dropped) and its send settled',
      60_000,
    );
    // Past the retry delay a definitely-not-sent step would get (300 s, moved to now), then the lease.
    await q(`UPDATE enrollments SET next_step_at = now() WHERE workspace_id = $1 AND status = 'active'`, [
      t.workspaceId,
    ]);
    await sleep((LEASE_SECONDS + 2) * 1000);
    await waitFor(settled, 'no send in flight', 30_000);

    // 0 duplicates: each server got each step 1 exactly once.
    const counts = setups.flatMap((s) => s.emails.map((e) => [e, receivedBy(s.server, e, 1)]));
    expect(counts).toEqual(setups.flatMap((s) => s.emails.map((e) => [e, 1])));

    const http = jsonClient(service.url, t.token);
    for (const s of setups) {
      const enrollments = await http.get(`/enrollments?campaign_id=${s.campaignId}`);
      expect(enrollments.status).toBe(200);
      expect(enrollments.body.data).toHaveLength(PER_SERVER);
      for (const e of enrollments.body.data as Array<Record<string, unknown>>) {
        expect(e).toMatchObject({ status: 'paused', current_step: 0 });
        expect(e.stop_note).toMatch(/outcome unknown/i);
      }
      const threads = await http.get(`/threads?campaign_id=${s.campaignId}`);
      expect(threads.status).toBe(200);
      expect(threads.body.data).toHaveLength(PER_SERVER);
      for (const th of threads.body.data as Array<{ id: number }>) {
        const messages = await http.get(`/threads/${th.id}/messages`);
        expect(messages.status).toBe(200);
        const outbound = (messages.body.data as Array<Record<string, unknown>>).filter(
          (m) => m.direction === 'outbound',
        );
        expect(outbound).toHaveLength(1);
        expect(outbound[0]).toMatchObject({ status: 'failed', step_position: 1 });
        expect(String(outbound[0].error)).toMatch(/^outcome unknown/);
      }
    }

    // Resume moves on to step 2 (dropped again the same way); step 1 is never sent again.
    const [first] = setups;
    const email = first.emails[0];
    const list = await http.get(`/enrollments?campaign_id=${first.campaignId}`);
    const contactIds = new Map<string, number>(
      (
        (await db.query(`SELECT id, email FROM contacts WHERE workspace_id = $1`, [t.workspaceId])) as Array<{
          id: number;
          email: string;
        }>
      ).map((c) => [c.email, Number(c.id)]),
    );
    const enrollment = (list.body.data as Array<{ id: number; contact_id: number }>).find(
      (e) => e.contact_id === contactIds.get(email),
    )!;
    const resumed = await http.post(`/enrollments/${enrollment.id}/resume`);
    expect(resumed.status).toBe(200);
    await waitFor(
      async () => receivedBy(first.server, email, 2) >= 1 && (await settled()),
      'step 2 received after resume',
      30_000,
    );
    await sleep((LEASE_SECONDS + 1) * 1000);
    expect([receivedBy(first.server, email, 1), receivedBy(first.server, email, 2)]).toEqual([1, 1]);
    const after = await http.get(`/enrollments/${enrollment.id}`);
    expect(after.body.data.status).toBe('paused');
    expect(after.body.data.stop_note).toMatch(/outcome unknown/i);
    expect(service.alive()).toBe(true);
  }, 180_000);
});
