// Builds dist/ when it is missing or older than src/, so `npm run cli` works on a fresh clone.
// One build at a time: the test run's global setup and its parallel Jest workers may all call this,
// and two `nest build`s writing dist/ at once would interleave. The lock is a directory (mkdir is
// atomic); one left behind by a killed build is taken over after LOCK_STALE_MS.
import { execSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

const LOCK = 'dist/.build-lock';
const LOCK_STALE_MS = 5 * 60_000;

function newest(dir) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

const stale = () => !existsSync('dist/cli.js') || newest('src') > statSync('dist/cli.js').mtimeMs;

function lock() {
  mkdirSync('dist', { recursive: true });
  for (;;) {
    try {
      mkdirSync(LOCK);
      return;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      try {
        if (Date.now() - statSync(LOCK).mtimeMs > LOCK_STALE_MS)
          rmSync(LOCK, { recursive: true, force: true });
      } catch {
        // released meanwhile
      }
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
}

if (stale()) {
  lock();
  try {
    // Built by whoever held the lock before us?
    if (stale()) execSync('npx nest build', { stdio: ['ignore', 'ignore', 'inherit'] });
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}
