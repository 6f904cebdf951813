/**
 * Per-key rate limits: atomic across concurrent requests, IETF RateLimit headers,
 * Retry-After on 429, and fail-open when Redis is unreachable.
 */
import type { ChildProcess } from 'node:child_process';
import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { api, bootApp, createTenant, mintKey, type TestTenant } from '../helpers/app.js';
import { freePort } from '../helpers/processes.js';
import { startRedis, stopRedis, startRedisForApp, stopRedisForApp } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait.js';

describe('rate limits', () => {
  let app: NestExpressApplication;
  let t: TestTenant;

  beforeAll(async () => {
    app = await bootApp();
    await app.listen(0, '127.0.0.1');
    t = await createTenant(app);
  });
  afterAll(() => app?.close());

  it('lets exactly 30 of 100 concurrent requests through on a key limited to 30/min', async () => {
    const token = await mintKey(app, {
      tier: 'workspace',
      workspaceId: t.workspaceId,
      scopes: ['contacts:read'],
      rateLimit: 30,
    });
    const answers = await Promise.all(Array.from({ length: 100 }, () => api(app, token).get('/me')));
    const passed = answers.filter((r) => r.status === 200);
    const limited = answers.filter((r) => r.status === 429);
    expect(passed).toHaveLength(30);
    expect(limited).toHaveLength(70);
    for (const r of limited) {
      expect(r.body.error.type).toBe('rate_limited');
      expect(r.headers['content-type']).toMatch(/^application\/json/);
      const retry = Number(r.headers['retry-after']);
      expect(Number.isInteger(retry)).toBe(true);
      expect(retry).toBeGreaterThanOrEqual(1);
      expect(retry).toBeLessThanOrEqual(60);
      expect(r.headers['ratelimit-policy']).toBe('"per-key";q=30;w=60');
      expect(r.headers['ratelimit']).toMatch(/^"per-key";r=0;t=\d+$/);
    }
    const remaining = passed
      .map((r) => Number(/r=(\d+)/.exec(r.headers['ratelimit'])![1]))
      .sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: 30 }, (_, i) => i));
    for (const r of passed) expect(r.headers['ratelimit-policy']).toBe('"per-key";q=30;w=60');
    // Another key of the same workspace has its own budget.
    expect((await api(app, t.token).get('/me')).status).toBe(200);
  });

  it('counts rejected requests: a 429 does not refund, the key stays limited', async () => {
    const token = await mintKey(app, {
      tier: 'workspace',
      workspaceId: t.workspaceId,
      scopes: ['contacts:read'],
      rateLimit: 2,
    });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await api(app, token).get('/me')).status);
    expect(statuses).toEqual([200, 200, 429, 429]);
  });

  it("uses the key's own limit, else the organization plan's, else the tier default", async () => {
    const planned = await createTenant(app, { rateLimit: 3 });
    const me = await api(app, planned.token).get('/me');
    expect(me.body.data.rate_limit).toEqual({ limit: 3, window_seconds: 60 });
    expect(me.headers['ratelimit-policy']).toBe('"per-key";q=3;w=60');
    const pk = await api(app, planned.provisioningToken).get('/me');
    expect(pk.body.data.rate_limit.limit).toBe(3);
    const own = await mintKey(app, {
      tier: 'workspace',
      workspaceId: planned.workspaceId,
      scopes: ['contacts:read'],
      rateLimit: 1000,
    });
    expect((await api(app, own).get('/me')).body.data.rate_limit.limit).toBe(1000);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await api(app, planned.token).get('/me')).status);
    // One request was spent on the first /me above.
    expect(statuses).toEqual([200, 200, 429]);
    expect((await api(app, t.provisioningToken).get('/me')).headers['ratelimit-policy']).toBe(
      '"per-key";q=120;w=60',
    );
  });

  it('spends no budget on requests refused before the limiter (wrong tier)', async () => {
    const token = await mintKey(app, {
      tier: 'workspace',
      workspaceId: t.workspaceId,
      scopes: ['contacts:read'],
      rateLimit: 1,
    });
    // Wrong tier (403) happens before the limiter: it does not spend the budget.
    for (let i = 0; i < 3; i++)
      expect((await api(app, token).get('/provisioning/workspaces')).status).toBe(403);
    expect((await api(app, token).get('/me')).status).toBe(200);
    expect((await api(app, token).get('/me')).status).toBe(429);
  });
});

describe('rate limits: Redis unavailable', () => {
  let app: NestExpressApplication;
  let t: TestTenant;
  let redis: ChildProcess;
  let port: number;
  const savedUrl = process.env.REDIS_URL;

  beforeAll(async () => {
    port = await freePort();
    redis = await startRedisForApp(port);
    app = await bootApp();
    await app.listen(0, '127.0.0.1');
    t = await createTenant(app);
  });

  afterAll(async () => {
    // Give the app a Redis to say goodbye to, so Bull closes cleanly.
    if (redis && (redis.exitCode !== null || redis.signalCode !== null)) redis = await startRedis(port);
    await app?.close();
    await stopRedisForApp(redis, savedUrl);
  });

  it('keeps answering GET /me when Redis stops (fails open) and limits again when it returns', async () => {
    const up = await api(app, t.token).get('/me');
    expect(up.status).toBe(200);
    expect(up.headers['ratelimit-policy']).toBe('"per-key";q=600;w=60');

    await stopRedis(redis);
    for (let i = 0; i < 5; i++) {
      const res = await api(app, t.token).get('/me').timeout(5000);
      expect(res.status).toBe(200);
      expect(res.body.data.workspace_id).toBe(t.workspaceId);
      expect(res.headers['ratelimit-policy']).toBeUndefined();
    }
    // Auth still works without Redis: a bad key is still refused.
    expect((await api(app, 'svc_sk_nope').get('/me').timeout(5000)).status).toBe(401);
    const ready = await request(app.getHttpServer()).get('/health/ready').timeout(5000);
    expect(ready.status).toBe(503);
    expect(ready.body.info?.redis?.status ?? ready.body.error?.redis?.status).toBe('down');
    expect((await request(app.getHttpServer()).get('/health/live')).status).toBe(200);

    redis = await startRedis(port);
    const back = await waitFor(async () => {
      const res = await api(app, t.token).get('/me');
      return res.headers['ratelimit-policy'] ? res : undefined;
    }, 'the limiter to use Redis again');
    expect(back.status).toBe(200);
    expect(back.headers['ratelimit-policy']).toBe('"per-key";q=600;w=60');
  });
});
