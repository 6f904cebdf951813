/**
 * Writing to the events outbox from any module: call inside the transaction that makes the change,
 * passing its EntityManager, so an event exists if and only if its cause was committed. The SQL is
 * in events.repository.ts; this adds the in-process wake-up of the webhook dispatcher.
 */
import type { EntityManager } from 'typeorm';
import { EventsRepository, OUTBOX_CHANNEL, type NewEvent } from './events.repository.js';

export { OUTBOX_CHANNEL, type NewEvent };

type OutboxListener = () => void;
const listeners = new Set<OutboxListener>();
const events = new EventsRepository();

/** The webhook dispatcher registers here to be woken right after commits (it also polls). */
export function onOutboxWrite(listener: OutboxListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function notifyOutbox(): void {
  for (const l of listeners) l();
}

export async function recordEvents(manager: EntityManager, batch: NewEvent[]): Promise<void> {
  if (batch.length === 0) return;
  await events.recordAcrossWorkspaces(batch, manager);
  // Listeners poll the table; waking them early after the transaction commits is a bonus, not a need.
  setImmediate(notifyOutbox);
}

export const recordEvent = (manager: EntityManager, event: NewEvent): Promise<void> =>
  recordEvents(manager, [event]);
