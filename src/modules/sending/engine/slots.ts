/** Concurrency primitives of a tick: SMTP slots, and the batched "SMTP starts now" mark. */
import type { MessageWritesRepository } from '../../threads/message-writes.repository.js';

/** A counting semaphore (FIFO). `onWait` runs when a caller has to wait. */
export class Slots {
  private readonly waiting: Array<() => void> = [];
  onWait: (() => void) | undefined;
  constructor(private free: number) {}

  async acquire(): Promise<void> {
    if (this.free > 0) {
      this.free -= 1;
      return;
    }
    const waited = new Promise<void>((resolve) => this.waiting.push(resolve));
    this.onWait?.();
    await waited;
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free += 1;
  }
}

/**
 * Sets `smtp_started_at` on messages about to enter SMTP: one UPDATE for all the requests that
 * arrive while the previous one runs. Only rows still `sending`, not begun, and whose enrollment
 * still carries this claim's token are marked; a message not marked must not be sent.
 */
export class StartMarker {
  private queue: Array<{ id: number; resolve: (ok: boolean) => void; reject: (err: unknown) => void }> = [];
  private running = false;

  constructor(
    private readonly messages: MessageWritesRepository,
    private readonly lease: Date,
  ) {}

  mark(id: number): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.queue.push({ id, resolve, reject });
      if (!this.running) void this.run();
    });
  }

  private async run(): Promise<void> {
    this.running = true;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0);
      try {
        const ok = await this.messages.markSmtpStartedAcrossWorkspaces(
          batch.map((b) => b.id),
          this.lease,
        );
        for (const b of batch) b.resolve(ok.has(b.id));
      } catch (err) {
        for (const b of batch) b.reject(err);
      }
    }
    this.running = false;
  }
}
