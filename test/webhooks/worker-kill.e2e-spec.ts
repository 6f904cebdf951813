/**
 * Crash safety: a worker process (the built service, APP_ROLE=worker) is killed with SIGKILL in the
 * middle of a burst of 2,000 events; after a restart every event reaches the receiver at least once.
 * State lives only in Postgres (outbox rows, deliveries and their leases).
 */
import { execSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DataSource } from 'typeorm';
import { seal } from '../../src/common/crypto/crypto.js';
import { webhookSecretAt } from '../../src/common/crypto/sealed-columns.js';
import { resetConfig } from '../../src/config/app-config.js';
import { createDataSource } from '../../src/database/data-source.js';
import { runMigrations } from '../../src/database/migrate.js';
import { recordEvents } from '../helpers/domain-writes.js';
import { generateSecret } from '../../src/modules/webhooks/signing.js';
import { startWorkerProcess } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';
import { asWorkspaceId } from '../../src/common/tenant/workspace-id.js';

const TOTAL = 2000;

describe('webhooks survive kill -9', () => {
  let db: DataSource;
  let server: Server;
  let url: string;
  const received = new Map<string, number>();
  const children: ChildProcess[] = [];

  const startWorker = async (): Promise<ChildProcess> => {
    const { child } = await startWorkerProcess({
      WEBHOOK_ALLOWED_TEST_HOSTS: '127.0.0.1',
      WEBHOOK_RETRY_SCHEDULE: '0,0,0,0,0',
      // Long enough that a busy machine (this run's other Jest worker, a benchmark) does not turn a slow
      // answer of the local receiver into a failed attempt: the test is about a SIGKILL, not timeouts.
      WEBHOOK_TIMEOUT_MS: '5000',
      WEBHOOK_POLL_MS: '100',
    });
    children.push(child);
    return child;
  };

  beforeAll(async () => {
    execSync('node scripts/ensure-built.mjs', { stdio: 'inherit' });
    delete process.env.WEBHOOK_ALLOWED_TEST_HOSTS;
    resetConfig();
    await runMigrations();
    db = createDataSource();
    await db.initialize();
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const id = req.headers['x-service-event-id'] as string;
        received.set(id, (received.get(id) ?? 0) + 1);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  }, 300_000);

  afterAll(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await db?.destroy();
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
  });

  it('delivers all 2,000 events at least once across a SIGKILL and a restart', async () => {
    const workspaceId = asWorkspaceId(randomUUID());
    const [{ id }] = (await db.query(
      `INSERT INTO webhook_endpoints (workspace_id, url, events, status, secret_sealed)
       VALUES ($1, $2, ARRAY['contact', 'message'], 'enabled', '') RETURNING id`,
      [workspaceId, url],
    )) as Array<{ id: number }>;
    await db.query(`UPDATE webhook_endpoints SET secret_sealed = $2 WHERE id = $1`, [
      id,
      seal(generateSecret(), webhookSecretAt(id)),
    ]);
    const first = await startWorker();

    const ids: string[] = [];
    let inserted = 0;
    let killedAt: { inserted: number; received: number } | null = null;
    // The burst: 40 transactions of 50 events; the worker dies once deliveries are flowing.
    for (let batch = 0; batch < TOTAL / 50; batch += 1) {
      await db.transaction((m) =>
        recordEvents(
          m,
          Array.from({ length: 50 }, (_, i) => ({
            workspaceId,
            type: i % 2 ? ('message.sent' as const) : ('contact.created' as const),
            data: { n: batch * 50 + i },
          })),
        ),
      );
      inserted += 50;
      if (!killedAt && received.size >= 200) {
        first.kill('SIGKILL');
        killedAt = { inserted, received: received.size };
      }
      if (!killedAt) await new Promise((r) => setTimeout(r, 20));
    }
    if (!killedAt) {
      // Deliveries were slower than the burst: kill while they are still going.
      await waitFor(async () => received.size >= 200, 'deliveries to start', 60_000);
      first.kill('SIGKILL');
      killedAt = { inserted, received: received.size };
    }
    if (first.exitCode === null && first.signalCode === null) await new Promise((r) => first.once('exit', r));
    expect(first.signalCode).toBe('SIGKILL');
    expect(killedAt.received).toBeLessThan(TOTAL);

    const rows = (await db.query(`SELECT id FROM events WHERE workspace_id = $1`, [workspaceId])) as Array<{
      id: string;
    }>;
    for (const r of rows) ids.push(r.id);
    expect(ids).toHaveLength(TOTAL);

    await startWorker();
    await waitFor(async () => ids.every((id) => received.has(id)), 'every event at the receiver', 120_000);
    expect(ids.filter((id) => !received.has(id))).toEqual([]);
    const [{ pending }] = (await waitFor(
      async () => {
        const r = (await db.query(
          `SELECT count(*) FILTER (WHERE status <> 'succeeded')::int AS pending, count(*)::int AS total
         FROM webhook_deliveries WHERE workspace_id = $1`,
          [workspaceId],
        )) as Array<{ pending: number; total: number }>;
        return r[0].pending === 0 && r[0].total === TOTAL && r;
      },
      'every delivery recorded as succeeded',
      60_000,
    )) as Array<{ pending: number }>;
    expect(pending).toBe(0);
  }, 300_000);
});
