#!/usr/bin/env node
/**
 * How long the 64-bit id migration (BigintIds) holds its locks on a populated installation: migrates
 * a scratch database up to the migration before it, seeds BENCH_ROWS (1,000,000) contacts,
 * enrollments, threads, messages and webhook deliveries in one workspace, then runs the remaining
 * migrations and prints the time of each statement (each ALTER TABLE holds an ACCESS EXCLUSIVE lock
 * on its table for its whole duration; each CREATE INDEX blocks writes to its table).
 *
 *   npx nest build && node bench/bigint-migration.mjs
 *
 * Uses DATABASE_URL as the admin connection (default postgres://postgres@127.0.0.1:5432/postgres).
 */
import pg from 'pg';
import * as lib from './lib.mjs';

const log = (...a) => console.error('[bench:bigint]', ...a);
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);

async function main() {
  const { adminUrl, dbName, dbUrl } = lib.scratch('bigint');
  const { DataSource } = await import('typeorm');
  const { dataSourceOptions } = await import('../dist/database/data-source.js');
  const { MIGRATIONS } = await import('../dist/database/migrations/index.js');
  const at = MIGRATIONS.findIndex((m) => m.name === 'BigintIds1799200000000');
  if (at < 0) throw new Error('BigintIds migration not found in dist/: build first');
  await lib.withClient(adminUrl, (c) => c.query(`CREATE DATABASE ${dbName}`));
  try {
    const before = new DataSource({ ...dataSourceOptions(dbUrl), migrations: MIGRATIONS.slice(0, at) });
    await before.initialize();
    await before.runMigrations({ transaction: 'each' });
    await before.destroy();
    log(`seeding ${ROWS} rows per table ...`);
    await lib.withClient(dbUrl, async (c) => {
      await c.query(`SET synchronous_commit = off`);
      const [org] = (
        await c.query(
          `INSERT INTO organizations (name, max_contacts_per_workspace) VALUES ('Org', 100000000) RETURNING id`,
        )
      ).rows;
      const [ws] = (
        await c.query(
          `INSERT INTO workspaces (organization_id, name, config) VALUES ($1, 'W', '{}') RETURNING id`,
          [org.id],
        )
      ).rows;
      const [inbox] = (
        await c.query(
          `INSERT INTO inboxes (workspace_id, email, domain, smtp_sealed, inbound_secret_hash)
           VALUES ($1, 'i@sender.test', 'sender.test', 'x', 'x') RETURNING id`,
          [ws.id],
        )
      ).rows;
      const w = ws.id;
      await c.query(
        `INSERT INTO contacts (workspace_id, email) SELECT $1, 'c' || g || '@example.test' FROM generate_series(1, $2::int) g`,
        [w, ROWS],
      );
      await c.query(
        `INSERT INTO enrollments (workspace_id, campaign_id, contact_id, status)
         SELECT workspace_id, 1, id, 'completed' FROM contacts`,
      );
      await c.query(
        `INSERT INTO threads (workspace_id, inbox_id, contact_id, enrollment_id, campaign_id, subject)
         SELECT workspace_id, $1, contact_id, id, 1, 'Hi' FROM enrollments`,
        [inbox.id],
      );
      await c.query(
        `INSERT INTO messages (workspace_id, thread_id, enrollment_id, direction, kind, from_address, to_address, status)
         SELECT workspace_id, id, enrollment_id, 'outbound', 'email', 'i@sender.test', 'c@example.test', 'sent' FROM threads`,
      );
      await c.query(
        `INSERT INTO webhook_deliveries (workspace_id, endpoint_id, event_id, event, status)
         SELECT $1, 1, gen_random_uuid(), 'contact.created', 'succeeded' FROM generate_series(1, $2::int)`,
        [w, ROWS],
      );
      await c.query('VACUUM ANALYZE');
    });
    const timings = [];
    const original = pg.Client.prototype.query;
    pg.Client.prototype.query = function (config, values, ...rest) {
      const text = typeof config === 'string' ? config : config?.text;
      const result = original.call(this, config, values, ...rest);
      if (text && /^(ALTER TABLE|CREATE INDEX)/.test(text) && result && typeof result.then === 'function') {
        const t0 = performance.now();
        result.then(() =>
          timings.push({ statement: text.slice(0, 110), s: (performance.now() - t0) / 1000 }),
        );
      }
      return result;
    };
    const after = new DataSource({ ...dataSourceOptions(dbUrl), migrations: MIGRATIONS });
    await after.initialize();
    const t0 = performance.now();
    await after.runMigrations({ transaction: 'each' });
    const total = (performance.now() - t0) / 1000;
    await after.destroy();
    pg.Client.prototype.query = original;
    for (const t of timings) console.log(`${t.s.toFixed(2).padStart(6)} s  ${t.statement}`);
    console.log(`${total.toFixed(2).padStart(6)} s  all remaining migrations, ${ROWS} rows per table`);
    console.log(
      JSON.stringify({
        bench: 'bigint-migration',
        rows: ROWS,
        total_s: Math.round(total * 100) / 100,
        timings,
      }),
    );
  } finally {
    await lib.withClient(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`));
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
