/**
 * Writing to the events outbox from any module: inject `Outbox` (exported by the events module) and
 * call it inside the transaction that makes the change, passing its EntityManager, so an event exists
 * if and only if its cause was committed. The SQL is in events.repository.ts; this adds the
 * in-process wake-up of the webhook dispatcher.
 */
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { EventsRepository, OUTBOX_CHANNEL, type NewEvent } from './events.repository.js';

export { OUTBOX_CHANNEL, type NewEvent };

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

@Injectable()
export class Outbox {
  constructor(private readonly events: EventsRepository) {}

  /** Events of any workspaces (each carries its own), in the caller's transaction. */
  async recordMany(manager: EntityManager, batch: NewEvent[]): Promise<void> {
    if (batch.length === 0) return;
    await this.events.recordAcrossWorkspaces(batch, manager);
    // Listeners poll the table; waking them early after the transaction commits is a bonus, not a need.
    setImmediate(notifyOutbox);
  }

  record(manager: EntityManager, event: NewEvent): Promise<void> {
    return this.recordMany(manager, [event]);
  }
}
