/**
 * APP_ROLE, observed on the built service as deployed: an `api` process serves HTTP and
 * registers no Bull processor; a `worker` process registers processors and opens no HTTP port.
 * Bull names every processing connection `<prefix>:<base64(queue)>` (what Queue#getWorkers reads),
 * so `CLIENT LIST` on the shared Redis shows which processes consume which queue.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { Redis } from 'ioredis';
import { QueueName } from '../../src/common/queue/queues.js';
import { runMigrations } from '../../src/database/migrate.js';
import { ensureBuilt, freePort } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';

interface Service {
  proc: ChildProcess;
  output: () => string;
}

const prefix = `${process.env.REDIS_PREFIX}:roles`;

function start(role: 'api' | 'worker', port: number): Service {
  const proc = spawn(process.execPath, ['dist/main.js'], {
    env: {
      ...process.env,
      APP_ROLE: role,
      PORT: String(port),
      REDIS_PREFIX: prefix,
      RUN_MIGRATIONS: 'false',
      LOG_LEVEL: 'info',
      ACCESS_LOG: 'false',
      SEND_TICK_MS: '60000',
      IMAP_POLL_SECONDS: '3600',
      NODE_OPTIONS: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  return { proc, output: () => out };
}

async function stop(service: Service | undefined): Promise<number | null> {
  if (!service) return null;
  const { proc } = service;
  if (proc.exitCode !== null || proc.signalCode !== null) return proc.exitCode;
  const exited = new Promise<number | null>((ok) => proc.once('exit', (code) => ok(code)));
  proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
  const code = await exited;
  clearTimeout(timer);
  return code;
}

function listening(port: number): Promise<boolean> {
  return new Promise((ok) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      ok(true);
    });
    socket.once('error', () => ok(false));
  });
}

describe('process roles', () => {
  let redis: Redis;
  let api: Service | undefined;
  let worker: Service | undefined;

  /** Names of the queues some process currently consumes, from the Redis client names Bull sets. */
  const consumedQueues = async (): Promise<string[]> => {
    const list = (await redis.client('LIST')) as string;
    const names = new Set<string>();
    for (const queue of Object.values(QueueName)) {
      const clientName = `${prefix}:bull:${Buffer.from(queue).toString('base64')}`;
      if (list.split('\n').some((line) => line.includes(` name=${clientName} `))) names.add(queue);
    }
    return [...names].sort();
  };

  beforeAll(async () => {
    ensureBuilt();
    await runMigrations();
    redis = new Redis(process.env.REDIS_URL!);
  }, 180_000);

  afterAll(async () => {
    await stop(api);
    await stop(worker);
    redis?.disconnect();
  });

  it('APP_ROLE=api serves HTTP and runs no Bull processor', async () => {
    const port = await freePort();
    api = start('api', port);
    await waitFor(async () => api!.output().includes('listening on'), 'the api process to listen', 60_000);
    const live = await fetch(`http://127.0.0.1:${port}/health/live`);
    expect(live.status).toBe(200);
    const ready = await fetch(`http://127.0.0.1:${port}/health/ready`);
    expect(ready.status).toBe(200);
    const me = await fetch(`http://127.0.0.1:${port}/api/v1/me`);
    expect(me.status).toBe(401);
    expect(await consumedQueues()).toEqual([]);
    expect(api.output()).not.toContain('workers ready');
  }, 120_000);

  it('APP_ROLE=worker runs the processors and opens no HTTP port', async () => {
    const port = await freePort();
    worker = start('worker', port);
    await waitFor(
      async () => worker!.output().includes('workers ready'),
      'the worker process to start',
      60_000,
    );
    const queues = await waitFor(async () => {
      const q = await consumedQueues();
      return q.length ? q : undefined;
    }, 'a Bull processor to connect');
    expect(queues).toContain(QueueName.Imports);
    expect(await listening(port)).toBe(false);
    expect(worker.output()).not.toContain('listening on');
    expect(worker.proc.exitCode).toBeNull();
  }, 120_000);

  it('both roles shut down cleanly on SIGTERM', async () => {
    expect(await stop(api)).toBe(0);
    expect(await stop(worker)).toBe(0);
    expect(await consumedQueues()).toEqual([]);
  }, 60_000);
});
