/**
 * Fault: SIGKILL of the worker process in the middle of a burst of webhook deliveries.
 *
 * Real processes: an API process and a worker process (`node dist/main.js`). The endpoint is
 * created through the API (http to 127.0.0.1, allowed by WEBHOOK_ALLOWED_TEST_HOSTS); the burst is
 * a 2,000-row import posted to the API, whose contact.created events the worker delivers to a local
 * receiver. The worker is SIGKILLed once deliveries flow; a new worker process takes over. Proves: no
 * event is lost (every created contact's event reaches the receiver at least once) and every
 * delivery ends `succeeded`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createFaultTenant, jsonClient } from '../helpers/faults-http.js';
import { startService, type Service, useProcesses, db } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';

const TOTAL = 2000;

describe('fault: SIGKILL mid-webhook-burst', () => {
  useProcesses();
  let receiver: Server;
  let hookUrl: string;
  /** contact.created deliveries received, by contact email. */
  const byEmail = new Map<string, number>();

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        try {
          const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
            event: string;
            data: { contact?: { email?: string } };
          };
          const email = event.data.contact?.email;
          if (event.event === 'contact.created' && email) byEmail.set(email, (byEmail.get(email) ?? 0) + 1);
        } catch {
          /* counted as not received */
        }
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  }, 300_000);

  afterAll(async () => {
    receiver?.closeAllConnections();
    await new Promise((r) => receiver?.close(r));
  });

  it('every event is delivered at least once across a SIGKILL and a new worker', async () => {
    const t = await createFaultTenant(db);
    const env = {
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}:webhook-kill`,
      WEBHOOK_ALLOWED_TEST_HOSTS: '127.0.0.1',
      WEBHOOK_RETRY_SCHEDULE: '0,1,1,1,1',
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_POLL_MS: '100',
    };
    const [api, first] = await Promise.all([
      startService({ role: 'api', env }),
      startService({ role: 'worker', env }),
    ]);
    const http = jsonClient(api.url, t.token);
    const endpoint = await http.post('/webhook-endpoints', { url: hookUrl, events: ['contact'] });
    expect(endpoint.status).toBe(201);

    const emails = Array.from({ length: TOTAL }, (_, i) => `burst${i}@example.com`);
    const posted = await http.post('/contacts/import', { contacts: emails.map((email) => ({ email })) });
    expect(posted.status).toBe(202);

    await waitFor(async () => byEmail.size >= 200, 'deliveries to flow', 90_000);
    await first.kill('SIGKILL');
    const atKill = byEmail.size;
    expect(first.child.signalCode).toBe('SIGKILL');
    expect(atKill).toBeLessThan(TOTAL);

    const second: Service = await startService({ role: 'worker', env });
    await waitFor(
      async () => emails.every((e) => byEmail.has(e)),
      `every event at the receiver (${TOTAL} expected)`,
      120_000,
    ).catch((err: Error) => {
      throw new Error(
        `${err.message}: ${byEmail.size} received, ${atKill} at the kill\n${second.problems()}`,
      );
    });
    expect(emails.filter((e) => !byEmail.has(e))).toEqual([]);

    // The import finished (resumed if the kill caught it) and created exactly these contacts.
    const imported = await http.get(`/imports/${posted.body.data.id}`);
    expect(imported.body.data).toMatchObject({ status: 'completed', created_count: TOTAL });
    // Every delivery ends succeeded: none left pending or failed behind the kill.
    const [{ open, total }] = await waitFor(
      async () => {
        const r = (await db.query(
          `SELECT count(*) FILTER (WHERE status <> 'succeeded')::int AS open, count(*)::int AS total
           FROM webhook_deliveries WHERE workspace_id = $1`,
          [t.workspaceId],
        )) as Array<{ open: number; total: number }>;
        return r[0].open === 0 ? r : undefined;
      },
      'every delivery succeeded',
      60_000,
    );
    expect({ open, total }).toEqual({ open: 0, total: TOTAL });
  }, 240_000);
});
