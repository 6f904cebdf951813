/**
 * A private `redis-server` (from PATH) on a free port, with no persistence, that a test can hang
 * (SIGSTOP), resume (SIGCONT), kill (SIGKILL) and start again on the same port. Killed in
 * stopAllRedis() (afterAll) and, as a last resort, when the test runner exits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './processes.js';

export interface PrivateRedis {
  port: number;
  url: string;
  pid(): number;
  /** SIGSTOP: the server keeps its port (connections are accepted by the kernel) but never answers. */
  hang(): void;
  /** SIGCONT after hang(). */
  resume(): void;
  /** SIGKILL: connections are refused until restart(); the data is gone (no persistence). */
  kill(): Promise<void>;
  /** A new server on the same port. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

const servers = new Set<ChildProcess>();
let exitHookInstalled = false;

/** Resolves once `PING` on the port answers `+PONG`. */
async function untilPong(port: number, proc: ChildProcess, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc.exitCode !== null || proc.signalCode !== null) {
      throw new Error(`redis-server on ${port} exited (${proc.exitCode ?? proc.signalCode})`);
    }
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1');
      const done = (v: boolean): void => {
        s.destroy();
        resolve(v);
      };
      s.setTimeout(500, () => done(false));
      s.once('error', () => done(false));
      s.once('connect', () => s.write('PING\r\n'));
      s.once('data', (d) => done(d.toString().startsWith('+PONG')));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`redis-server on ${port} did not answer PING`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const p of servers) p.kill('SIGKILL');
    });
  }
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'faults-redis-'));
  let proc: ChildProcess;
  const launch = async (): Promise<void> => {
    proc = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
      { stdio: 'ignore' },
    );
    servers.add(proc);
    const p = proc;
    proc.once('exit', () => servers.delete(p));
    await untilPong(port, proc);
  };
  const killNow = async (): Promise<void> => {
    const p = proc;
    if (p.exitCode !== null || p.signalCode !== null) return;
    const exited = new Promise((r) => p.once('exit', r));
    p.kill('SIGKILL');
    await exited;
  };
  await launch();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    pid: () => proc.pid!,
    hang: () => void proc.kill('SIGSTOP'),
    resume: () => void proc.kill('SIGCONT'),
    kill: killNow,
    restart: launch,
    stop: async () => {
      await killNow();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Kills every private redis-server still running (afterAll). */
export function stopAllRedis(): void {
  for (const p of servers) p.kill('SIGKILL');
  servers.clear();
}
