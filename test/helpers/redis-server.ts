/** A private `redis-server` process for tests that stop, pause or restart Redis. */
import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { resetConfig } from '../../src/config/app-config.js';
import { waitFor } from './wait.js';

export async function startRedis(port: number): Promise<ChildProcess> {
  const proc = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const probe = new Redis(port, '127.0.0.1', {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  try {
    await waitFor(async () => {
      try {
        if (probe.status !== 'ready') await probe.connect();
        return (await probe.ping()) === 'PONG';
      } catch {
        probe.disconnect();
        return false;
      }
    }, 'redis-server to answer');
  } finally {
    probe.disconnect();
  }
  return proc;
}

export async function stopRedis(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((ok) => proc.once('exit', ok));
  proc.kill('SIGCONT');
  proc.kill('SIGKILL');
  await exited;
}

/** Starts Redis on `port` and points this file's config at it (REDIS_URL), for the app booted next. */
export async function startRedisForApp(port: number): Promise<ChildProcess> {
  const proc = await startRedis(port);
  process.env.REDIS_URL = `redis://127.0.0.1:${port}`;
  resetConfig();
  return proc;
}

/** Stops that Redis (when started) and points the config back at `url`, the run's Redis. */
export async function stopRedisForApp(
  proc: ChildProcess | undefined,
  url: string | undefined,
): Promise<void> {
  if (proc) await stopRedis(proc);
  process.env.REDIS_URL = url;
  resetConfig();
}
