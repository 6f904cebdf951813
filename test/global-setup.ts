/**
 * One run of the e2e files on the machine's PostgreSQL and Redis, with up to `maxWorkers` Jest
 * workers running files at the same time. Each worker gets a database of its own
 * (`<run>_w<JEST_WORKER_ID>`, created here for every worker, migrated by the first file it runs), a
 * Redis key prefix of its own and a traffic file of its own (test/worker-env.ts picks them), so two
 * files running at once never share rows, queues or keys, and runs never collide with each other or
 * with other clients. The run's scratch directory (TEST_RUN_DIR) holds the traffic files and the
 * run's progress (test/run-progress-reporter.mjs); global-teardown drops and removes all of it.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default async function globalSetup(globalConfig: { maxWorkers: number }): Promise<void> {
  const admin = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `test_${Date.now()}_${randomBytes(3).toString('hex')}`;
  const workers = Math.max(1, globalConfig.maxWorkers ?? 1);
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  for (let w = 1; w <= workers; w += 1) await client.query(`CREATE DATABASE ${name}_w${w}`);
  await client.end();
  // Read by test/worker-env.ts in every test file, which sets TEST_DATABASE_NAME, DATABASE_URL,
  // REDIS_PREFIX and OPENAPI_TRAFFIC_FILE for the file's worker.
  process.env.TEST_RUN_NAME = name;
  process.env.TEST_RUN_WORKERS = String(workers);
  process.env.TEST_RUN_DIR = mkdtempSync(join(tmpdir(), `${name}-`));
  process.env.REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
  process.env.API_KEY_PEPPER = randomBytes(24).toString('base64url');
  process.env.ENCRYPTION_KEY = randomBytes(32).toString('hex');
  process.env.PUBLIC_URL = 'http://service.test';
  process.env.LOG_LEVEL = process.env.LOG_LEVEL ?? 'silent';
  process.env.ACCESS_LOG = 'false';
  // Tests that run the service as deployed spawn dist/ (node dist/cli.js, dist/main.js): it is built
  // here, once, before any worker starts, when it is missing or older than src/ (the same check as
  // scripts/ensure-built.mjs, which the files' own ensureBuilt calls then find fresh). Building in a
  // worker while the other one starts dist/main.js could hand it half-written files.
  // (Jest's moduleNameMapper does not apply to this file, hence no import of helpers/processes.ts.)
  const build = spawnSync(process.execPath, ['scripts/ensure-built.mjs'], {
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  if (!existsSync('dist/main.js') || !existsSync('dist/cli.js')) {
    // In-process files can still run; files that spawn the service fail with this output.
    writeFileSync(join(process.env.TEST_RUN_DIR, 'build-failed.txt'), `${build.stdout}\n${build.stderr}`);
  }
}
