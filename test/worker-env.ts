/**
 * Jest `setupFiles`: runs before every test file, in the worker that runs it, and points the file at
 * that worker's own database, Redis key prefix and traffic file (global-setup.ts created one database
 * per worker). Two files running at once are always on two workers, so they never share rows (an
 * engine worker of one file would otherwise pick up another file's due enrollments), Bull queues,
 * rate-limit counters or leases. Values derived from these (a file's `${TEST_DATABASE_NAME}_fleet`
 * database, `${REDIS_PREFIX}:<name>` prefixes) are then per worker too.
 */
const run = process.env.TEST_RUN_NAME;
if (run) {
  const worker = Number(process.env.JEST_WORKER_ID ?? '1');
  const workers = Number(process.env.TEST_RUN_WORKERS ?? '1');
  if (!(worker >= 1 && worker <= workers)) {
    throw new Error(
      `JEST_WORKER_ID ${process.env.JEST_WORKER_ID} has no database (global setup made ${workers})`,
    );
  }
  const name = `${run}_w${worker}`;
  const url = new URL(process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  url.pathname = `/${name}`;
  process.env.TEST_DATABASE_NAME = name;
  process.env.DATABASE_URL = url.toString();
  process.env.REDIS_PREFIX = `test:${name}`;
  // Every in-process exchange of this worker's files, for test/openapi/traffic.e2e-spec.ts, which
  // reads every worker's file. One file per worker: no two processes append to the same file.
  process.env.OPENAPI_TRAFFIC_FILE = `${process.env.TEST_RUN_DIR}/traffic-w${worker}.jsonl`;
}
// The service and the CLI read ./.env at start (src/config/env-file.ts): the processes the tests
// start must not pick up a developer's own .env in the checkout. Tests that check the loader set
// ENV_FILE themselves.
process.env.ENV_FILE ??= '';
// Address verification looks every contact's domain up in DNS, and a test machine's own resolver may
// answer nothing or NXDOMAIN for every domain: under a campaign's default `skip_invalid` every sending
// test's contacts (example.com, ...) would be skipped, and `pending` ones would wait for a verdict. The
// tests of verification itself (local DNS server) set VERIFY_ADDRESSES=true for their own files.
process.env.VERIFY_ADDRESSES ??= 'false';
export {};
