/**
 * Bounded tables: finished webhook deliveries and dispatched events older than EVENT_RETENTION_DAYS
 * are deleted, in batches, and never an event a delivery still waits for; staged rows of finished
 * imports are deleted in batches; expired idempotency records until none is left (docs/performance.md).
 * Real PostgreSQL; the sweeps are called directly (this process runs the API role, so no loop races them).
 */
import { randomUUID } from 'node:crypto';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DataSource } from 'typeorm';
import { resetConfig } from '../../src/config/app-config.js';
import type { TestTenant } from '../helpers/app.js';

describe('retention sweeps', () => {
  let app: NestExpressApplication;
  let db: DataSource;
  let t: TestTenant;
  const previousRole = process.env.APP_ROLE;
  const q = <T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> =>
    db.query(sql, params) as Promise<T[]>;

  beforeAll(async () => {
    process.env.APP_ROLE = 'api';
    resetConfig();
    const helpers = await import('../helpers/app.js');
    app = await helpers.bootApp();
    db = app.get(DataSource);
    t = await helpers.createTenant(app);
  });

  afterAll(async () => {
    await app.close();
    if (previousRole === undefined) delete process.env.APP_ROLE;
    else process.env.APP_ROLE = previousRole;
    resetConfig();
  });

  async function event(ageDays: number, dispatched: boolean, workspaceId = t.workspaceId): Promise<string> {
    const id = randomUUID();
    await q(
      `INSERT INTO events (id, workspace_id, type, data, occurred_at, dispatched_at, created_at)
       VALUES ($1, $2, 'contact.created', '{}', now() - make_interval(days => $3),
               CASE WHEN $4 THEN now() - make_interval(days => $3) END, now() - make_interval(days => $3))`,
      [id, workspaceId, ageDays, dispatched],
    );
    return id;
  }

  async function delivery(
    endpointId: number,
    eventId: string,
    status: string,
    ageDays: number,
  ): Promise<number> {
    const [row] = await q<{ id: number }>(
      `INSERT INTO webhook_deliveries (workspace_id, endpoint_id, event_id, event, status, created_at)
       VALUES ($1, $2, $3, 'contact.created', $4, now() - make_interval(days => $5)) RETURNING id`,
      [t.workspaceId, endpointId, eventId, status, ageDays],
    );
    return Number(row.id);
  }

  const exists = async (table: string, id: string | number): Promise<boolean> =>
    (await q(`SELECT 1 FROM ${table} WHERE id = $1`, [id])).length === 1;

  it('deletes old finished deliveries and old dispatched events, keeps what is recent, undispatched or still awaited', async () => {
    const { EventRetentionService } = await import('../../src/modules/webhooks/event-retention.service.js');
    const sweeper = app.get(EventRetentionService);
    const [endpoint] = await q<{ id: number }>(
      `INSERT INTO webhook_endpoints (workspace_id, url, events, status, secret_sealed)
       VALUES ($1, 'https://example.com/hook', '{contact}', 'disabled', 'v2.x') RETURNING id`,
      [t.workspaceId],
    );
    const oldAlone = await event(40, true);
    const oldUndispatched = await event(40, false);
    const recent = await event(2, true);
    const oldAwaited = await event(40, true);
    const waiting = await delivery(endpoint.id, oldAwaited, 'pending', 40);
    const oldDelivered = await event(40, true);
    const succeeded = await delivery(endpoint.id, oldDelivered, 'succeeded', 40);
    const recentEvent = await event(3, true);
    const recentFailed = await delivery(endpoint.id, recentEvent, 'failed', 3);

    while (await sweeper.sweepOnce()) {
      /* until a pass comes back short */
    }

    expect(await exists('events', oldAlone)).toBe(false);
    expect(await exists('events', oldDelivered)).toBe(false);
    expect(await exists('webhook_deliveries', succeeded)).toBe(false);
    expect(await exists('events', oldUndispatched)).toBe(true);
    expect(await exists('events', recent)).toBe(true);
    expect(await exists('events', oldAwaited)).toBe(true);
    expect(await exists('webhook_deliveries', waiting)).toBe(true);
    expect(await exists('events', recentEvent)).toBe(true);
    expect(await exists('webhook_deliveries', recentFailed)).toBe(true);
  });

  it('deletes in batches: a pass removes at most its batch and says when more is waiting', async () => {
    const { EventRetentionService } = await import('../../src/modules/webhooks/event-retention.service.js');
    const sweeper = app.get(EventRetentionService);
    // A tenant of its own: the first test left an old event that a pending delivery keeps.
    const { createTenant } = await import('../helpers/app.js');
    const other = await createTenant(app);
    for (let i = 0; i < 5; i++) await event(45, true, other.workspaceId);
    const countOld = async (): Promise<number> =>
      Number(
        (
          await q<{ n: number }>(
            `SELECT count(*)::int AS n FROM events WHERE workspace_id = $1 AND dispatched_at IS NOT NULL
               AND created_at < now() - interval '30 days'`,
            [other.workspaceId],
          )
        )[0].n,
      );
    expect(await countOld()).toBe(5);
    expect(await sweeper.sweepOnce(2)).toBe(true);
    expect(await countOld()).toBe(3);
    expect(await sweeper.sweepOnce(2)).toBe(true);
    expect(await sweeper.sweepOnce(2)).toBe(false); // the last one: short
    expect(await countOld()).toBe(0);
  });

  it('deletes the staged rows of finished imports, in batches, and keeps those of running imports', async () => {
    const { ImportsService } = await import('../../src/modules/imports/imports.service.js');
    const imports = app.get(ImportsService);
    const batch = async (status: string): Promise<number> => {
      const [row] = await q<{ id: number }>(
        `INSERT INTO imports (workspace_id, status, total_rows) VALUES ($1, $2, 3) RETURNING id`,
        [t.workspaceId, status],
      );
      await q(
        `INSERT INTO import_rows (import_id, row_number, data)
         SELECT $1, n, jsonb_build_object('email', 'r' || n || '@example.com') FROM generate_series(1, 3) n`,
        [row.id],
      );
      return Number(row.id);
    };
    const staged = async (id: number): Promise<number> =>
      Number(
        (await q<{ n: number }>('SELECT count(*)::int AS n FROM import_rows WHERE import_id = $1', [id]))[0]
          .n,
      );
    // Other test files leave finished imports with staged rows: clear those first (the sweep spans workspaces).
    while (await imports.sweepStagedRows()) {
      /* until short */
    }
    const failed = await batch('failed');
    const completed = await batch('completed');
    const running = await batch('processing');

    expect(await imports.sweepStagedRows(4)).toBe(true); // 4 of the 6 finished rows
    expect((await staged(failed)) + (await staged(completed))).toBe(2);
    while (await imports.sweepStagedRows(4)) {
      /* until short */
    }
    expect(await staged(failed)).toBe(0);
    expect(await staged(completed)).toBe(0);
    expect(await staged(running)).toBe(3);
  });

  it('sweeps expired idempotency records until none is left, one batch per statement', async () => {
    const { IdempotencySweeper } = await import('../../src/common/idempotency/idempotency-sweeper.js');
    const { IdempotencyRepository } = await import('../../src/common/idempotency/idempotency.repository.js');
    const tenant = `ws:${t.workspaceId}`;
    const repo = app.get(IdempotencyRepository);
    // Other test files leave expired records: clear those first (the sweep spans tenants).
    while ((await repo.deleteExpiredAcrossWorkspaces(5000)) > 0) {
      /* until none */
    }
    await q(
      `INSERT INTO idempotency_keys (tenant, key, fingerprint, state, expires_at)
       SELECT $1, 'expired-' || n, 'x', 'completed', now() - interval '1 minute' FROM generate_series(1, 7) n`,
      [tenant],
    );
    await q(
      `INSERT INTO idempotency_keys (tenant, key, fingerprint, state, expires_at)
       VALUES ($1, 'live', 'x', 'completed', now() + interval '1 hour')`,
      [tenant],
    );
    expect(await repo.deleteExpiredAcrossWorkspaces(3)).toBe(3);
    while (await app.get(IdempotencySweeper).sweepOnce()) {
      /* until short */
    }
    const left = await q<{ key: string }>('SELECT key FROM idempotency_keys WHERE tenant = $1 ORDER BY key', [
      tenant,
    ]);
    expect(left.map((r) => r.key)).toEqual(['live']);
  });
});
