/**
 * docs/trust/README.md, dependencies fail safe, against real servers made to misbehave (no mocks):
 * - a Redis that accepts connections but never answers (redis-server stopped with SIGSTOP): requests
 *   still get 2xx within ~1 s (command timeout, the limiter fails open), Bull's adds time out;
 * - a PostgreSQL that becomes unreachable (a TCP proxy in front of it, closed): 503
 *   service_unavailable with Retry-After, never 401 and never 500, on the credential lookup and in
 *   handlers; `/health/ready` says `down` without error text, host or port; all recovers after.
 */
import type { ChildProcess } from 'node:child_process';
import { getQueueToken } from '@nestjs/bull';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Queue } from 'bull';
import request from 'supertest';
import { BULL_COMMAND_TIMEOUT_MS } from '../../src/common/queue/queue.module.js';
import { REDIS_COMMAND_TIMEOUT_MS } from '../../src/common/redis/redis.module.js';
import { QueueName } from '../../src/common/queue/queues.js';
import { resetConfig } from '../../src/config/app-config.js';
import { api, bootApp, createTenant, type TestTenant } from '../helpers/app.js';
import { freePort } from '../helpers/processes.js';
import { startRedisForApp, stopRedisForApp } from '../helpers/redis-server.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { waitFor } from '../helpers/wait.js';

/** Runs `fn` and returns its result with the time it took. */
/**
 * Answered in time: within the Redis command timeout (1 s) plus a margin for a loaded machine (a
 * clean-clone run once took 2 s for the first request, behind a GC pause), well below the 5 s after
 * which a request that waited on the hung Redis would have been cut off.
 */
const FAST_MS = REDIS_COMMAND_TIMEOUT_MS + 2000;

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await fn();
  return { value, ms: Date.now() - started };
}

describe('dependencies: a Redis that accepts connections but never answers', () => {
  let app: NestExpressApplication;
  let t: TestTenant;
  let redis: ChildProcess;
  const savedUrl = process.env.REDIS_URL;

  beforeAll(async () => {
    const port = await freePort();
    redis = await startRedisForApp(port);
    app = await bootApp();
    await app.listen(0, '127.0.0.1');
    t = await createTenant(app);
  });

  afterAll(async () => {
    redis?.kill('SIGCONT');
    await app?.close();
    await stopRedisForApp(redis, savedUrl);
  });

  it('answers 2xx within the command timeout, fails the limiter open, times out queue adds, and recovers', async () => {
    // The app's Redis connections to the freshly started server may still be coming up: wait until
    // the limiter answers (a clean-clone run's first request came before it did).
    const up = await waitFor(async () => {
      const res = await api(app, t.token).get('/me');
      return res.headers['ratelimit-policy'] ? res : null;
    }, 'the limiter answering with Redis up');
    expect(up.status).toBe(200);
    expect(up.headers['ratelimit-policy']).toBe('"per-key";q=600;w=60');

    redis.kill('SIGSTOP');
    for (let i = 0; i < 5; i += 1) {
      const { value: res, ms } = await timed(() => api(app, t.token).get('/me').timeout(5000));
      expect({ status: res.status, fast: ms < FAST_MS }).toEqual({ status: 200, fast: true });
      expect(res.headers['ratelimit-policy']).toBeUndefined();
    }
    const { value: created, ms: createMs } = await timed(() =>
      api(app, t.token)
        .post('/contacts')
        .send({ email: 'redis-hang@example.com', first_name: 'R' })
        .timeout(5000),
    );
    expect({ status: created.status, fast: createMs < FAST_MS }).toEqual({ status: 200, fast: true });

    const { value: ready, ms: readyMs } = await timed(() =>
      request(app.getHttpServer()).get('/health/ready').timeout(5000),
    );
    expect({ status: ready.status, fast: readyMs < 3000 }).toEqual({ status: 503, fast: true });
    expect(ready.body.details).toEqual({ database: { status: 'up' }, redis: { status: 'down' } });

    // Bull's adds time out instead of waiting for Redis forever.
    const queue = app.get<Queue>(getQueueToken(QueueName.Imports), { strict: false });
    const { value: outcome, ms: addMs } = await timed(() =>
      queue
        .add('edge-timeout-probe', {}, { delay: 3_600_000, removeOnComplete: true, removeOnFail: true })
        .then(
          () => 'added',
          (err: Error) => err.message,
        ),
    );
    expect(outcome).toMatch(/timed out/i);
    expect(addMs).toBeLessThan(BULL_COMMAND_TIMEOUT_MS + 2000);

    redis.kill('SIGCONT');
    const back = await waitFor(async () => {
      const res = await api(app, t.token).get('/me');
      return res.headers['ratelimit-policy'] ? res : undefined;
    }, 'the limiter to use Redis again');
    expect(back.status).toBe(200);
    expect((await request(app.getHttpServer()).get('/health/ready')).status).toBe(200);
  }, 60_000);
});

describe('dependencies: PostgreSQL unreachable', () => {
  let app: NestExpressApplication;
  let t: TestTenant;
  let proxy: TcpProxy;
  const savedUrl = process.env.DATABASE_URL;

  beforeAll(async () => {
    const real = new URL(savedUrl!);
    proxy = new TcpProxy(await freePort(), { host: real.hostname, port: Number(real.port || 5432) });
    await proxy.up();
    const viaProxy = new URL(savedUrl!);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    process.env.DATABASE_URL = viaProxy.toString();
    resetConfig();
    app = await bootApp();
    await app.listen(0, '127.0.0.1');
    t = await createTenant(app);
  });

  afterAll(async () => {
    await proxy?.up().catch(() => undefined);
    await app?.close();
    await proxy?.down();
    process.env.DATABASE_URL = savedUrl;
    resetConfig();
  });

  const expect503 = (res: request.Response): void => {
    expect({ status: res.status, type: res.body.error?.type }).toEqual({
      status: 503,
      type: 'service_unavailable',
    });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(res.body.error.message).not.toMatch(/127\.0\.0\.1|ECONN|\d{4,5}|terminated/);
  };

  it('answers 503 service_unavailable with Retry-After, never 401, and recovers', async () => {
    expect((await api(app, t.token).get('/contacts')).status).toBe(200);
    // The key was just looked up (and is remembered for a second): the handler's query fails.
    await proxy.down();
    expect503(await api(app, t.token).get('/contacts'));
    // Once the remembered key has expired, the credential lookup itself fails: still 503, not 401.
    await new Promise((r) => setTimeout(r, 1200));
    expect503(await api(app, t.token).get('/me'));
    expect503(
      await api(app, t.token).post('/contacts').send({ email: 'pg-down@example.com', first_name: 'P' }),
    );
    // Without a key, or with one whose checksum is wrong, it is still 401: no lookup was needed.
    expect((await api(app).get('/me')).status).toBe(401);
    // Another last character (a token ending in `x` would keep its checksum with `x`).
    const badChecksum = `${t.token.slice(0, -1)}${t.token.endsWith('x') ? 'y' : 'x'}`;
    expect((await api(app, badChecksum).get('/me')).status).toBe(401);

    const ready = await request(app.getHttpServer()).get('/health/ready').timeout(5000);
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({
      status: 'error',
      info: { redis: { status: 'up' } },
      error: { database: { status: 'down' } },
      details: { database: { status: 'down' }, redis: { status: 'up' } },
    });
    expect(JSON.stringify(ready.body)).not.toMatch(/127\.0\.0\.1|localhost|ECONN|message|:\d+/);

    await proxy.up();
    const back = await waitFor(async () => {
      const res = await api(app, t.token).get('/me');
      return res.status === 200 ? res : undefined;
    }, 'the API to reach PostgreSQL again');
    expect(back.body.data.workspace_id).toBe(t.workspaceId);
    const healthy = await request(app.getHttpServer()).get('/health/ready');
    expect(healthy.status).toBe(200);
    expect(healthy.body).toEqual({
      status: 'ok',
      info: { database: { status: 'up' }, redis: { status: 'up' } },
      error: {},
      details: { database: { status: 'up' }, redis: { status: 'up' } },
    });
  }, 60_000);
});
