/**
 * docs/trust/README.md "dependencies fail safe", the import half, on the built service (`node dist/main.js`,
 * APP_ROLE=all) with its own `redis-server` on a free port: while Redis is down, POST
 * /contacts/import still answers 202 at once (the batch is staged in PostgreSQL; the queue add is
 * bounded), and the import runs once Redis is back (the worker's recovery sweep re-enqueues queued
 * batches under their import id).
 */
import type { ChildProcess } from 'node:child_process';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { bootApp, createTenant, type TestTenant } from '../helpers/app.js';
import { ensureBuilt, freePort, startService, stopAllServices } from '../helpers/processes.js';
import { startRedis, stopRedis } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait.js';

describe('imports while Redis is down', () => {
  let app: NestExpressApplication;
  let t: TestTenant;
  let redis: ChildProcess;
  let redisPort = 0;
  let service: ChildProcess;
  let base = '';

  beforeAll(async () => {
    ensureBuilt();
    app = await bootApp();
    t = await createTenant(app);
    redisPort = await freePort();
    redis = await startRedis(redisPort);
    await new Promise((r) => setTimeout(r, 300));
    const all = await startService({
      role: 'all',
      env: {
        REDIS_URL: `redis://127.0.0.1:${redisPort}`,
        SEND_TICK_MS: '60000',
        IMPORT_SWEEP_MS: '1000',
        IMPORT_RECOVER_AFTER_MS: '1000',
      },
    });
    base = `${all.url}/api/v1`;
    service = all.child;
  }, 300_000);

  afterAll(async () => {
    await stopAllServices();
    if (redis) await stopRedis(redis);
    await app?.close();
  });

  const importStatus = async (id: number): Promise<string> => {
    const res = await fetch(`${base}/imports/${id}`, { headers: { authorization: `Bearer ${t.token}` } });
    return ((await res.json()) as { data: { status: string } }).data.status;
  };

  it('answers 202 at once while Redis is down, and runs the import when Redis is back', async () => {
    await stopRedis(redis);
    const started = Date.now();
    const res = await fetch(`${base}/contacts/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ contacts: [{ email: 'down1@example.com' }, { email: 'down2@example.com' }] }),
    });
    expect(res.status).toBe(202);
    expect(Date.now() - started).toBeLessThan(5_000);
    const { data } = (await res.json()) as { data: { id: number; status: string } };
    expect(data.status).toBe('queued');
    await new Promise((r) => setTimeout(r, 1500));
    expect(await importStatus(data.id)).toBe('queued'); // nothing ran it meanwhile

    redis = await startRedis(redisPort); // back, empty: any job added before is gone
    await waitFor(
      async () => ((await importStatus(data.id)) === 'completed' ? true : undefined),
      'the import to complete once Redis is back',
      30_000, // the sweep runs every IMPORT_SWEEP_MS (1 s here; 10 s by default, was 60 s)
    );
    const res2 = await fetch(`${base}/contacts?email=down2@example.com`, {
      headers: { authorization: `Bearer ${t.token}` },
    });
    expect(((await res2.json()) as { data: unknown[] }).data).toHaveLength(1);
    expect(service.exitCode).toBeNull();
  }, 120_000);
});
