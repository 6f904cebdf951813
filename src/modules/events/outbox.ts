/**
 * Writing to the events outbox. Call inside the transaction that makes the change, passing its
 * EntityManager, so an event exists if and only if its cause was committed.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity.js';
import { EventRecord } from './entities/event.entity.js';
import type { EventType } from './event-types.js';

export interface NewEvent {
  workspaceId: string;
  type: EventType;
  data: Record<string, unknown>;
  occurredAt?: Date;
}

/** Postgres channel notified (on commit) when events are written, so workers in other processes wake. */
export const OUTBOX_CHANNEL = 'events_outbox';

type OutboxListener = () => void;
const listeners = new Set<OutboxListener>();

/** The webhook dispatcher registers here to be woken right after commits (it also polls). */
export function onOutboxWrite(listener: OutboxListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function notifyOutbox(): void {
  for (const l of listeners) l();
}

export async function recordEvents(manager: EntityManager, events: NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  const now = new Date();
  const rows = events.map((e) => ({
    id: randomUUID(),
    workspaceId: e.workspaceId,
    type: e.type,
    data: e.data,
    occurredAt: e.occurredAt ?? now,
  }));
  for (let i = 0; i < rows.length; i += 1000) {
    await manager
      .createQueryBuilder()
      .insert()
      .into(EventRecord)
      .values(rows.slice(i, i + 1000) as QueryDeepPartialEntity<EventRecord>[])
      .execute();
  }
  // Listeners poll the table; waking them early after the transaction commits is a bonus, not a need.
  // NOTIFY is transactional: delivered to other processes on commit, dropped on rollback.
  await manager.query(`SELECT pg_notify('${OUTBOX_CHANNEL}', '')`);
  setImmediate(notifyOutbox);
}

export const recordEvent = (manager: EntityManager, event: NewEvent): Promise<void> =>
  recordEvents(manager, [event]);
