/**
 * The worker's IMAP connections (docs/mailboxes.md): one long-lived connection per mailbox this worker
 * holds the lease of, new mail learned by IDLE (NOOP where the server has no IDLE) and read at least
 * every IMAP_POLL_SECONDS.
 *
 * The fleet's pass (mailbox-fleet.ts: heartbeat, list, own, lease, start and stop) runs in the
 * `imap-mailboxes` loop, every min(IMAP_POLL_SECONDS, IMAP_LEASE_SECONDS / 3), over the inboxes with
 * IMAP settings. No database connection is held while IMAP I/O runs (the lock is the Redis lease).
 * Shutdown (SIGTERM): draining stops every connection after the mail being settled and logs out.
 */
import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { Draining } from '../../common/lifecycle/draining.js';
import { logger } from '../../common/logging/logger.js';
import { setImapMailboxes } from '../../common/metrics/metrics.js';
import { REDIS } from '../../common/redis/redis.module.js';
import { Slots } from '../../common/worker/slots.js';
import type { AppConfig } from '../../config/app-config.js';
import { InboxStateRepository } from '../inboxes/inbox-state.repository.js';
import { InboundRepository } from './inbound.repository.js';
import { MailboxConnection, type ConnectionDeps } from './mailbox-connection.js';
import { errorText, MailboxFleet } from './mailbox-fleet.js';
import { MailboxReader } from './mailbox-reader.js';

@Injectable()
export class ImapConnections extends MailboxFleet<MailboxConnection> {
  private deps: ConnectionDeps | undefined;

  constructor(
    private readonly inbound: InboundRepository,
    private readonly inboxes: InboxStateRepository,
    private readonly reader: MailboxReader,
    draining: Draining,
    @Inject(REDIS) redis: Redis,
  ) {
    super('imap', draining, redis);
  }

  /** How often `pass` runs: a third of the lease, and at least once per IMAP_POLL_SECONDS. */
  static intervalMs(config: AppConfig): number {
    return Math.min(config.imapPollSeconds * 1000, (config.imapLeaseSeconds * 1000) / 3);
  }

  protected listInboxIds(): Promise<string[]> {
    return this.inbound.inboxIdsToPollAcrossWorkspaces();
  }

  protected newLoop(inboxId: string): MailboxConnection {
    return new MailboxConnection(inboxId, this.connectionDeps());
  }

  private connectionDeps(): ConnectionDeps {
    if (!this.deps) {
      const leases = this.leases();
      const config = this.config;
      this.deps = {
        config,
        reader: this.reader,
        leases,
        openSlots: new Slots(config.imapPollConcurrency),
        readSlots: new Slots(config.imapSyncConcurrency),
        holds: (inboxId) => this.holds(inboxId),
        noteError: (inboxId, message) =>
          this.inboxes
            .noteErrorAcrossWorkspaces(inboxId, message)
            .catch((err: unknown) =>
              logger.warn({ inboxId, err: errorText(err) }, 'imap: last_error not saved'),
            ),
        clearError: (inboxId) =>
          this.inboxes
            .clearImapErrorAcrossWorkspaces(inboxId)
            .catch((err: unknown) =>
              logger.warn({ inboxId, err: errorText(err) }, 'imap: last_error not cleared'),
            ),
        changed: () => this.changed(),
      };
    }
    return this.deps;
  }

  /** Mailboxes connected now, by mode (metrics). */
  counts(): { idle: number; poll: number; leased: number } {
    let idle = 0;
    let poll = 0;
    for (const c of this.loops.values()) {
      if (c.mode === 'idle') idle += 1;
      else if (c.mode === 'poll') poll += 1;
    }
    return { idle, poll, leased: this.loops.size };
  }

  protected override changed(): void {
    setImapMailboxes(this.counts());
  }
}
