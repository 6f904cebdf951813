/**
 * Benchmark, not a test (not matched by the suite's `*.e2e-spec.ts`): BENCH_API_INBOXES (1,000) Gmail
 * API inboxes read by one worker process (`node dist/main.js`, APP_ROLE=worker, default settings)
 * from the local Gmail API with BENCH_RTT_MS (50) added to every answer. One reply per inbox is
 * delivered, spread over 60 s. Prints: replies recorded once, delivery → ingestion p50/p99/max
 * (delivery = the mail put in the fake mailbox; ingestion = the inbound row's created_at), API
 * requests per inbox per hour while idle, the worker's CPU and RSS while idle.
 *
 *   npm run test:jest -- --testMatch '<rootDir>/test/providers/api-bench.ts' --maxWorkers=1
 */
import { readFileSync } from 'node:fs';
import { asWorkspaceId } from '../../src/common/tenant/workspace-id.js';
import { connectOAuthInbox } from '../../src/modules/inboxes/inboxes.service.js';
import { createFaultTenant } from '../helpers/faults-http.js';
import { reply, seedSends, type FleetMailbox } from '../helpers/mailbox-fleet.js';
import { db, startService, useProcesses } from '../helpers/processes.js';
import { startProviderFakes, type ProviderFakes } from '../helpers/provider-apis.js';
import { seedCampaign } from '../helpers/seed.js';
import { waitFor } from '../helpers/wait.js';

const N = Number(process.env.BENCH_API_INBOXES ?? 1000);
const RTT_MS = Number(process.env.BENCH_RTT_MS ?? 50);
const SPREAD_S = 60;
const IDLE_S = 60;

const cpuMs = (pid: number): number => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
};
const rssMb = (pid: number): number =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

describe('bench: API inboxes on one worker', () => {
  let fakes: ProviderFakes;
  useProcesses({ after: () => fakes?.close() });
  beforeAll(async () => {
    fakes = await startProviderFakes();
  });

  it(`${N} Gmail API inboxes, ${RTT_MS} ms away`, async () => {
    const tenant = await createFaultTenant(db);
    const ws = asWorkspaceId(tenant.workspaceId);
    const campaign = await seedCampaign((sql, p) => db.query(sql, p), { workspaceId: ws, smtpPort: 1 });
    const mailboxes: FleetMailbox[] = [];
    for (let i = 0; i < N; i++) {
      const email = `bench${i}@gmail-bench.test`;
      const { inbox } = await connectOAuthInbox(db, {
        workspaceId: ws,
        email,
        provider: 'google',
        refreshToken: await fakes.mintRefreshToken(email),
        transport: 'api',
      });
      mailboxes.push({ inboxId: inbox.id, user: email, email });
    }
    const sends = await seedSends(db, ws, campaign.campaignId, mailboxes, 'bench');
    fakes.gmail.latencyMs = RTT_MS;
    const ids = mailboxes.map((m) => m.inboxId);
    const started = Date.now();
    const worker = await startService({
      role: 'worker',
      env: { REDIS_PREFIX: `${process.env.REDIS_PREFIX}:api-bench`, SEND_TICK_MS: '600000' },
    });
    await waitFor(
      async () =>
        (
          (await db.query(
            `SELECT count(*)::int AS n FROM inboxes WHERE id = ANY($1::uuid[]) AND api_checkpoint IS NOT NULL`,
            [ids],
          )) as Array<{ n: number }>
        )[0].n === N,
      'every inbox read once',
      600_000,
    );
    const firstRound = (Date.now() - started) / 1000;
    // Idle: requests and worker cost with nothing arriving.
    const reqBefore = fakes.gmail.requests.length;
    const cpuBefore = cpuMs(worker.pid);
    await new Promise((r) => setTimeout(r, IDLE_S * 1000));
    const idleRequests = fakes.gmail.requests.length - reqBefore;
    const idleCpu = (cpuMs(worker.pid) - cpuBefore) / (IDLE_S * 1000);
    const idleRss = rssMb(worker.pid);
    // Replies spread over SPREAD_S seconds.
    const deliveredAt = new Map<number, number>();
    const gap = (SPREAD_S * 1000) / N;
    for (const s of sends) {
      await new Promise((r) => setTimeout(r, gap));
      deliveredAt.set(s.enrollmentId, Date.now());
      fakes.gmail.deliver(s.mailbox.email, reply(s));
    }
    const rows = await waitFor(
      async () => {
        const r = (await db.query(
          `SELECT enrollment_id, count(*)::int AS n, min(created_at) AS at FROM messages
             WHERE workspace_id = $1 AND direction = 'inbound' GROUP BY enrollment_id`,
          [ws],
        )) as Array<{ enrollment_id: number; n: number; at: Date }>;
        return r.length === N ? r : null;
      },
      'every reply recorded',
      600_000,
    );
    const lat = rows.map(
      (r) => (new Date(r.at).getTime() - deliveredAt.get(Number(r.enrollment_id))!) / 1000,
    );
    const out = {
      inboxes: N,
      rtt_ms: RTT_MS,
      first_read_of_all_s: Number(firstRound.toFixed(1)),
      replies_recorded: rows.length,
      recorded_twice: rows.filter((r) => r.n > 1).length,
      latency_p50_s: Number(pct(lat, 50).toFixed(2)),
      latency_p99_s: Number(pct(lat, 99).toFixed(2)),
      latency_max_s: Number(Math.max(...lat).toFixed(2)),
      idle_requests_per_inbox_per_hour: Number(((idleRequests / N) * (3600 / IDLE_S)).toFixed(1)),
      idle_worker_cpu_percent: Number((idleCpu * 100).toFixed(1)),
      idle_worker_rss_mb: Math.round(idleRss),
    };
    console.log(JSON.stringify(out));
    expect(rows.every((r) => r.n === 1)).toBe(true);
  }, 1_800_000);
});
