/** The built service (dist/), for tests that run it as operators do: `node dist/main.js`, `node dist/cli.js`. */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export { freePort } from '../../src/config/embedded.js';

function newestMtime(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return t;
}

/**
 * Builds dist/ once when it is missing or older than src/. tsc emits even when another file has a type
 * error (`npm run check` catches those), so only a missing output fails here.
 */
export function ensureBuilt(): void {
  const fresh = existsSync('dist/cli.js') && statSync('dist/cli.js').mtimeMs >= newestMtime('src');
  if (fresh && existsSync('dist/main.js')) return;
  const res = spawnSync('npx', ['nest', 'build'], {
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  if (!existsSync('dist/cli.js') || !existsSync('dist/main.js')) {
    throw new Error(`nest build failed:\n${res.stdout}\n${res.stderr}`);
  }
}

/** A running `node dist/main.js` and the tail of what it printed. */
export interface ServiceProcess {
  child: ChildProcess;
  output(): string;
}

/**
 * Starts `node dist/main.js` as a worker process (APP_ROLE=worker) with `env` over this process's
 * environment and resolves once it logs `workers ready`; rejects if it exits first.
 */
export async function startWorkerProcess(env: NodeJS.ProcessEnv): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ['dist/main.js'], {
    env: { ...process.env, APP_ROLE: 'worker', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer): void => {
      out = (out + d.toString()).slice(-20_000);
      if (out.includes('workers ready')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`worker exited (${code}): ${out.slice(-2000)}`)));
  });
  return { child, output: () => out };
}
