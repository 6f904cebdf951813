#!/usr/bin/env node
/**
 * Webhook delivery benchmark (not a test): 10,000 events through the outbox to one local receiver,
 * next to a raw undici loop posting the same signed payloads to the same receiver, in the same run.
 *
 *   npx nest build && node bench/webhooks.mjs
 *
 * Uses DATABASE_URL's server (a scratch database is created and dropped) and REDIS_URL (default
 * redis://127.0.0.1:6379, a private key prefix). The service runs as a child process
 * (`node dist/main.js`, APP_ROLE=worker) exactly as in production. Env: BENCH_EVENTS (10000),
 * BENCH_RAW_CONCURRENCY (128). Prints one JSON object with the figures on stdout.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import * as lib from './lib.mjs';

const { root, sleep, connect, withClient, stopProcess } = lib;
const require = createRequire(join(root, 'package.json'));
const { Pool } = require('undici');

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const RAW_CONCURRENCY = Number(process.env.BENCH_RAW_CONCURRENCY ?? 128);
const log = (...a) => console.error('[bench:webhooks]', ...a);

const { adminUrl, dbName, dbUrl } = lib.scratch('webhooks');
const encryptionKey = randomBytes(32);
const env = {
  ...process.env,
  DATABASE_URL: dbUrl,
  REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  REDIS_PREFIX: `bench:${dbName}`,
  API_KEY_PEPPER: randomBytes(24).toString('base64url'),
  ENCRYPTION_KEY: encryptionKey.toString('hex'),
  APP_ROLE: 'worker',
  LOG_LEVEL: 'info',
  ACCESS_LOG: 'false',
  WEBHOOK_ALLOWED_TEST_HOSTS: '127.0.0.1',
  PORT: '0',
};

const admin = (sql) => withClient(adminUrl, (c) => c.query(sql));

function startReceiver() {
  let count = 0;
  const seen = new Set();
  let onCount = () => {};
  const server = createServer((req, res) => {
    req.on('data', () => {});
    req.on('end', () => {
      count += 1;
      const id = req.headers['x-service-event-id'];
      if (id) seen.add(id);
      res.writeHead(204).end();
      onCount(count, seen.size);
    });
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        server,
        url: `http://127.0.0.1:${server.address().port}/hook`,
        count: () => count,
        unique: () => seen.size,
        reset: () => {
          count = 0;
          seen.clear();
        },
        onCount: (fn) => (onCount = fn),
      }),
    ),
  );
}

async function rawLoop(url, payloads) {
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections: 64, pipelining: 1, keepAliveTimeout: 30_000 });
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < payloads.length) {
      const p = payloads[next++];
      const res = await pool.request({
        origin: target.origin,
        path: target.pathname,
        method: 'POST',
        headers: p.headers,
        body: p.body,
      });
      for await (const _ of res.body);
      if (res.statusCode >= 300) throw new Error(`raw loop got ${res.statusCode}`);
    }
  };
  await Promise.all(Array.from({ length: RAW_CONCURRENCY }, worker));
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  return { seconds, perSecond: payloads.length / seconds };
}

/** The worker process (BENCH_WORKER_NODE_ARGS go to it), ready once it logs `workers ready`. */
async function startWorker() {
  const { proc } = await lib.startProcess({
    env,
    script: join(root, 'dist/main.js'),
    readyLine: 'workers ready',
    what: 'worker',
    nodeArgs: (process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean),
  });
  return proc;
}

async function main() {
  await admin(`CREATE DATABASE ${dbName}`);
  let client;
  let worker;
  let receiver;
  try {
    Object.assign(process.env, env);
    const { runMigrations } = await import(join(root, 'dist/database/migrate.js'));
    await runMigrations(dbUrl);
    const { seal } = await import(join(root, 'dist/common/crypto/crypto.js'));
    const { generateSecret, signedHeaders, standardKey } = await import(
      join(root, 'dist/modules/webhooks/signing.js')
    );
    client = await connect(dbUrl);
    receiver = await startReceiver();

    const workspaceId = randomUUID();
    const secret = generateSecret();
    const key = standardKey(secret);
    const events = Array.from({ length: EVENTS }, (_, i) => ({
      id: randomUUID(),
      data: { contact: { id: i + 1, email: `person${i + 1}@example.com`, first_name: 'Ada', stage: 'new' } },
      occurredAt: new Date(),
    }));

    // 1. The raw undici loop: the same envelopes, signed the same way, straight to the receiver.
    const payloads = events.map((e) => {
      const body = JSON.stringify({
        id: e.id,
        version: 'v1',
        event: 'contact.created',
        occurred_at: e.occurredAt.toISOString(),
        workspace_id: workspaceId,
        data: e.data,
      });
      return { body, headers: signedHeaders(secret, e.id, 'contact.created', body, new Date(), key) };
    });
    await rawLoop(receiver.url, payloads.slice(0, Math.min(1000, payloads.length))); // warm-up
    receiver.reset();
    const raw = await rawLoop(receiver.url, payloads);
    log(`raw undici: ${raw.perSecond.toFixed(0)} req/s`);
    receiver.reset();

    // 2. The service: a worker process, one endpoint, EVENTS outbox rows committed at once.
    // The sealed secret is bound to the endpoint's id (webhook_endpoints.secret_sealed.<id>).
    const { id: endpointId } = (
      await client.query(
        `INSERT INTO webhook_endpoints (workspace_id, url, events, status, secret_sealed)
         VALUES ($1, $2, ARRAY['contact'], 'enabled', '') RETURNING id`,
        [workspaceId, receiver.url],
      )
    ).rows[0];
    await client.query(`UPDATE webhook_endpoints SET secret_sealed = $2 WHERE id = $1`, [
      endpointId,
      seal(secret, `webhook_endpoints.secret_sealed.${endpointId}`, [encryptionKey]),
    ]);
    worker = await startWorker();
    log('worker ready; writing events');
    // The service's run of `batch`: the clock starts once the events are committed (as the raw loop's
    // starts with its payloads built), then waits until each reached the receiver and was recorded.
    const deliver = async (batch) => {
      receiver.reset();
      const done = new Promise((resolve) =>
        receiver.onCount((_count, unique) => {
          if (unique >= batch.length) resolve();
        }),
      );
      const before = (
        await client.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'succeeded'`)
      ).rows[0].n;
      const insertStarted = performance.now();
      await client.query(
        `INSERT INTO events (id, workspace_id, type, data, occurred_at)
         SELECT u.id, $1, 'contact.created', u.data, u.at
         FROM unnest($2::uuid[], $3::json[], $4::timestamptz[]) AS u(id, data, at)`,
        [
          workspaceId,
          batch.map((e) => e.id),
          batch.map((e) => JSON.stringify(e.data)),
          batch.map((e) => e.occurredAt.toISOString()),
        ],
      );
      const started = performance.now();
      // What recordEvents() does after writing events: wake the workers in other processes.
      await client.query(`SELECT pg_notify('events_outbox', '')`);
      let trace;
      if (process.env.BENCH_TRACE) {
        const tc = await connect(dbUrl);
        trace = setInterval(async () => {
          const r = await tc.query(
            `SELECT (SELECT count(*) FROM events WHERE dispatched_at IS NOT NULL)::int AS dispatched,
                    (SELECT count(*) FROM webhook_deliveries WHERE status = 'succeeded')::int AS succeeded`,
          );
          log(
            `${((performance.now() - started) / 1000).toFixed(2)}s received=${receiver.count()}`,
            r.rows[0],
          );
        }, 200);
        trace.client = tc;
      }
      await done;
      if (trace) {
        clearInterval(trace);
        await trace.client.end();
      }
      const receivedSeconds = (performance.now() - started) / 1000;
      // Wait until every delivery is recorded as succeeded, too.
      let recorded = 0;
      while (recorded < batch.length) {
        const r = await client.query(
          `SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'succeeded'`,
        );
        recorded = r.rows[0].n - before;
        if (recorded < batch.length) await sleep(20);
      }
      return {
        insertSeconds: (started - insertStarted) / 1000,
        receivedSeconds,
        recordedSeconds: (performance.now() - started) / 1000,
      };
    };
    // Warm-up, as the raw loop had: fresh events through the same path.
    const warmup = Array.from({ length: Math.min(1000, EVENTS) }, (_, i) => ({
      id: randomUUID(),
      data: { contact: { id: i + 1, email: `warm${i + 1}@example.com`, first_name: 'Ada', stage: 'new' } },
      occurredAt: new Date(),
    }));
    await deliver(warmup);
    const { insertSeconds, receivedSeconds, recordedSeconds } = await deliver(events);
    log(`events inserted in ${insertSeconds.toFixed(2)} s (not counted)`);
    const service = EVENTS / receivedSeconds;
    const result = {
      bench: 'webhooks',
      events: EVENTS,
      raw_undici_per_second: Math.round(raw.perSecond),
      service_deliveries_per_second: Math.round(service),
      service_recorded_per_second: Math.round(EVENTS / recordedSeconds),
      ratio_to_raw: Math.round((service / raw.perSecond) * 100) / 100,
      events_insert_seconds_not_counted: Math.round(insertSeconds * 100) / 100,
      duplicates_received: receiver.count() - receiver.unique(),
      target: { deliveries_per_second: 1000, ratio_to_raw: 0.5 },
      met: service >= 1000 && service / raw.perSecond >= 0.5,
    };
    console.log(JSON.stringify(result));
  } finally {
    await stopProcess(worker, 5000);
    receiver?.server.closeAllConnections();
    receiver?.server.close();
    await client?.end().catch(() => {});
    await admin(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch((e) => log('drop failed', e.message));
    await lib
      .deleteRedisPrefix(env.REDIS_URL, env.REDIS_PREFIX)
      .catch((e) => log('redis cleanup failed', e.message));
  }
}

await main();
