/**
 * The engine's timers in worker processes (APP_ROLE=all|worker): the send tick every SEND_TICK_MS
 * (again at once while batches come back full), IMAP polling every IMAP_POLL_SECONDS and the body
 * retention purge every hour. Every process runs them; SKIP LOCKED claims, atomic capacity
 * reservations and per-inbox advisory locks make that safe. Plain timers, not Bull repeatable jobs:
 * each tick is already a bounded, idempotent unit of work that any process may run at any time, so a
 * queue would add a second source of truth without adding a guarantee.
 */
import { Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { logger } from '../../common/logging/logger.js';
import { appConfig } from '../../config/app-config.js';
import { ImapPoller } from '../inbound/imap-poller.service.js';
import { MessageRetentionService } from '../threads/message-retention.service.js';
import { CLAIM_BATCH, SendEngine } from './send-engine.service.js';

const RETENTION_INTERVAL_MS = 60 * 60 * 1000;

class Loop {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly name: string,
    private readonly intervalMs: number,
    /** Returns true when there is more to do right away. */
    private readonly work: () => Promise<boolean>,
  ) {}

  start(firstDelayMs = 0): void {
    this.schedule(firstDelayMs);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.run();
    }, ms);
    this.timer.unref?.();
  }

  private async run(): Promise<void> {
    let more = false;
    try {
      more = await this.work();
    } catch (err) {
      logger.error(
        { loop: this.name, err: err instanceof Error ? err.message : String(err) },
        'worker loop failed',
      );
    }
    this.schedule(more ? 0 : this.intervalMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }
}

@Injectable()
export class SendingWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly loops: Loop[] = [];

  constructor(
    private readonly engine: SendEngine,
    private readonly poller: ImapPoller,
    private readonly retention: MessageRetentionService,
  ) {}

  onApplicationBootstrap(): void {
    const config = appConfig();
    const send = new Loop('send', config.sendTickMs, async () => (await this.engine.tick()) >= CLAIM_BATCH);
    const imap = new Loop('imap', config.imapPollSeconds * 1000, async () => {
      await this.poller.pollAll();
      return false;
    });
    const retention = new Loop('retention', RETENTION_INTERVAL_MS, async () => {
      const purged = await this.retention.purgeExpiredBodies();
      if (purged) logger.info({ purged }, 'retention: message bodies purged');
      return false;
    });
    this.loops.push(send, imap, retention);
    send.start(Math.min(config.sendTickMs, 1000));
    imap.start(Math.min(config.imapPollSeconds * 1000, 5000));
    retention.start(60_000);
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all(this.loops.map((l) => l.stop()));
  }
}
