import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { EventType } from './event-types.js';
import { rowsOf } from '../../database/query-rows.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

export interface NewEvent {
  workspaceId: WorkspaceId;
  type: EventType;
  data: Record<string, unknown>;
  occurredAt?: Date;
}

/** Postgres channel notified (on commit) when events are written, so workers in other processes wake. */
export const OUTBOX_CHANNEL = 'events_outbox';

/**
 * One statement for any number of events: five arrays unnested into rows (the ORM's insert builder
 * cost more CPU per event than the rest of the send path's finalisation, docs/performance.md).
 * `data` is stored as the JSON text `JSON.stringify` gives, as the ORM wrote it. The same statement
 * sends the NOTIFY that wakes the dispatchers of other processes (transactional: delivered on
 * commit, dropped on rollback): one round trip less on every path that records an event.
 */
const INSERT_EVENTS = `WITH recorded AS (
    INSERT INTO events (id, workspace_id, type, data, occurred_at)
    SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::json[], $5::timestamptz[])
    RETURNING 1
  )
  SELECT pg_notify('${OUTBOX_CHANNEL}', '') WHERE EXISTS (SELECT 1 FROM recorded)`;

/**
 * The outbox insert as the data-modifying CTE of a statement that also makes the change: `source`
 * names a CTE of that statement yielding `(workspace_id uuid, type text, data json)`, one row per
 * event, occurring at the transaction's time. For a set-based change whose events would otherwise
 * make a round trip through objects (an import chunk's `contact.created`: contacts'
 * `ContactImportsRepository`; as a second statement it cost a third more time and twice the memory).
 * The events module keeps the columns and the id rule.
 */
export const outboxInsertFrom = (source: string): string =>
  `INSERT INTO events (id, workspace_id, type, data, occurred_at)
  SELECT gen_random_uuid(), workspace_id, type, data, now() FROM ${source}`;

/**
 * The outbox's side of the webhook fan-out, as the two CTE bodies of the statement that also creates
 * the deliveries (webhooks' `WebhookDeliveryRepository`): one statement, so that a claim cannot be
 * lost between marking events dispatched and creating their deliveries. `claimUndispatchedSql`
 * claims up to `$1` undispatched events, oldest first, skipping rows another dispatcher holds
 * (name it `ev`); `MARK_DISPATCHED_SQL` marks exactly those dispatched (one row per event).
 */
export const claimUndispatchedSql = (columns: string): string => `
  SELECT ${columns} FROM events
  WHERE dispatched_at IS NULL
  ORDER BY created_at
  LIMIT $1
  FOR UPDATE SKIP LOCKED`;

export const MARK_DISPATCHED_SQL =
  'UPDATE events SET dispatched_at = now() FROM ev WHERE events.id = ev.id RETURNING 1';

/**
 * The events outbox. Always written inside the transaction that makes the change (pass its manager),
 * so an event exists if and only if its cause was committed. Stateless: every method takes the manager.
 */
@Injectable()
export class EventsRepository {
  record(
    workspaceId: WorkspaceId,
    event: Omit<NewEvent, 'workspaceId'>,
    manager: EntityManager,
  ): Promise<void> {
    return this.recordAcrossWorkspaces([{ ...event, workspaceId }], manager);
  }

  /** Events of any workspaces (a send batch spans tenants); each carries its own workspace id. */
  async recordAcrossWorkspaces(events: NewEvent[], manager: EntityManager): Promise<void> {
    if (events.length === 0) return;
    const now = new Date();
    await manager.query(INSERT_EVENTS, [
      events.map(() => randomUUID()),
      events.map((e) => e.workspaceId),
      events.map((e) => e.type),
      events.map((e) => JSON.stringify(e.data)),
      events.map((e) => e.occurredAt ?? now),
    ]);
  }

  /**
   * A `webhook.test` event, already dispatched (no endpoint but the tested one receives it, as a
   * finished delivery the webhooks module records).
   */
  async recordDispatchedTest(
    workspaceId: WorkspaceId,
    e: { id: string; data: string; occurredAt: string },
    manager: EntityManager,
  ): Promise<void> {
    await manager.query(
      `INSERT INTO events (id, workspace_id, type, data, occurred_at, dispatched_at)
       VALUES ($2, $1, 'webhook.test', $3::json, $4, now())`,
      [workspaceId, e.id, e.data, e.occurredAt],
    );
  }

  /**
   * Deletes up to `batch` dispatched events older than `days` that no delivery still waits for; how
   * many. (Deliveries of an event are deleted first, by age, in the webhooks module.)
   */
  async deleteExpiredAcrossWorkspaces(days: number, batch: number, manager: EntityManager): Promise<number> {
    const deleted = rowsOf(
      await manager.query(
        `DELETE FROM events WHERE id IN (
           SELECT e.id FROM events e
           WHERE e.dispatched_at IS NOT NULL AND e.created_at < now() - make_interval(days => $1)
             AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = 'pending')
           LIMIT $2)
         RETURNING 1`,
        [days, batch],
      ),
    );
    return deleted.length;
  }
}
