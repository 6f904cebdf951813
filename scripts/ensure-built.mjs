// Builds dist/ when it is missing or older than src/, so `npm run cli` works on a fresh clone.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function newest(dir) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

if (!existsSync('dist/cli.js') || newest('src') > statSync('dist/cli.js').mtimeMs) {
  execSync('npx nest build', { stdio: ['ignore', 'ignore', 'inherit'] });
}
