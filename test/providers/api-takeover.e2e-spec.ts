/**
 * API inboxes on real worker processes (`node dist/main.js`, APP_ROLE=worker) share the API fleet's
 * leases (docs/provider-apis.md): two workers read 30 Gmail API inboxes; one is killed with SIGKILL
 * and replies then arrive in every mailbox: the survivor takes the dead worker's inboxes over when
 * their leases lapse (IMAP_LEASE_SECONDS=10) and every reply is recorded exactly once.
 */
import { Redis } from 'ioredis';
import { asWorkspaceId } from '../../src/common/tenant/workspace-id.js';
import { connectOAuthInbox } from '../../src/modules/inboxes/inboxes.service.js';
import { createFaultTenant } from '../helpers/faults-http.js';
import { reply, seedSends, type FleetMailbox } from '../helpers/mailbox-fleet.js';
import { db, startService, useProcesses } from '../helpers/processes.js';
import { startProviderFakes, type ProviderFakes } from '../helpers/provider-apis.js';
import { seedCampaign } from '../helpers/seed.js';
import { waitFor } from '../helpers/wait.js';

const INBOXES = 30;

describe('API inboxes across worker processes: a killed worker’s inboxes are taken over', () => {
  let fakes: ProviderFakes;
  useProcesses({ after: () => fakes?.close() });
  beforeAll(async () => {
    fakes = await startProviderFakes();
  });

  it('SIGKILL one of two workers: every reply delivered afterwards is recorded once', async () => {
    const tenant = await createFaultTenant(db);
    const ws = asWorkspaceId(tenant.workspaceId);
    const campaign = await seedCampaign((sql, p) => db.query(sql, p), { workspaceId: ws, smtpPort: 1 });
    const mailboxes: FleetMailbox[] = [];
    for (let i = 0; i < INBOXES; i++) {
      const email = `fleet${i}@gmail-fleet.test`;
      const { inbox } = await connectOAuthInbox(db, {
        workspaceId: ws,
        email,
        provider: 'google',
        refreshToken: await fakes.mintRefreshToken(email),
        transport: 'api',
      });
      mailboxes.push({ inboxId: inbox.id, user: email, email });
    }
    const sends = await seedSends(db, ws, campaign.campaignId, mailboxes, 'fleet');
    const ids = mailboxes.map((m) => m.inboxId);
    const prefix = `${process.env.REDIS_PREFIX}:api-kill`;
    const env = {
      REDIS_PREFIX: prefix,
      IMAP_LEASE_SECONDS: '10',
      API_POLL_SECONDS: '1',
      SEND_TICK_MS: '600000',
      IMAP_POLL_SECONDS: '3600',
    };
    const doomed = await startService({ role: 'worker', env });
    await startService({ role: 'worker', env });
    // Every inbox read once (a checkpoint each), by one worker or the other.
    await waitFor(
      async () =>
        (
          (await db.query(
            `SELECT count(*)::int AS n FROM inboxes WHERE id = ANY($1::uuid[]) AND api_checkpoint IS NOT NULL`,
            [ids],
          )) as Array<{ n: number }>
        )[0].n === INBOXES,
      'every inbox read once',
      60_000,
    );
    const readers = new Set(
      fakes.gmail.requests
        .filter((r) => r.path.endsWith('/history') || r.path.endsWith('/messages'))
        .map((r) => r.email),
    );
    expect(readers.size).toBe(INBOXES);
    // The two workers share the inboxes (the first gives the second's share back at its next pass);
    // the one about to be killed holds part of them (a worker's id names its pid).
    const redis = new Redis(process.env.REDIS_URL!);
    let held = 0;
    try {
      const keys = ids.map((id) => `${prefix}:api:lease:${id}`);
      await waitFor(
        async () => {
          const owners = await redis.mget(...keys);
          held = owners.filter((o) => o?.split(':')[1] === String(doomed.pid)).length;
          return owners.every((o) => o !== null) && held > 0 && held < INBOXES;
        },
        'the inboxes shared by the two workers',
        30_000,
      );
    } finally {
      redis.disconnect();
    }
    await doomed.kill('SIGKILL');
    const killedAt = Date.now();
    for (const s of sends) fakes.gmail.deliver(s.mailbox.email, reply(s));
    const recorded = async (): Promise<Array<{ enrollment_id: number; n: number }>> =>
      (await db.query(
        `SELECT enrollment_id, count(*)::int AS n FROM messages
         WHERE workspace_id = $1 AND direction = 'inbound' GROUP BY enrollment_id`,
        [ws],
      )) as Array<{ enrollment_id: number; n: number }>;
    await waitFor(async () => (await recorded()).length === INBOXES, 'every reply recorded', 90_000);
    expect(Date.now() - killedAt).toBeLessThan(60_000);
    await new Promise((r) => setTimeout(r, 3000));
    const rows = await recorded();
    expect(rows).toHaveLength(INBOXES);
    expect(rows.every((r) => r.n === 1)).toBe(true);
    const events = (await db.query(
      `SELECT count(*)::int AS n FROM events WHERE workspace_id = $1 AND type = 'email.replied'`,
      [ws],
    )) as Array<{ n: number }>;
    expect(events[0].n).toBe(INBOXES);
  });
});
