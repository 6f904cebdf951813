/**
 * The process is shutting down: set once, by main.ts on SIGTERM/SIGINT (before Nest's close) or by the
 * worker runner when the application closes. Whatever holds work checks it and winds down instead
 * of starting more: the send engine gives its claims back, the import runner stops after its chunk,
 * the webhook worker releases leases it has not started, readiness answers 503 and responses close
 * their connection. One instance per application (not a module global), so an application booted
 * after another one closed in the same process starts fresh.
 */
import { Global, Injectable, Module } from '@nestjs/common';

@Injectable()
export class Draining {
  private started = false;
  private readonly listeners: Array<() => void> = [];

  /** True once shutdown has begun. */
  get active(): boolean {
    return this.started;
  }

  /** Starts draining (idempotent); listeners run once, synchronously. */
  begin(): void {
    if (this.started) return;
    this.started = true;
    for (const listener of this.listeners.splice(0)) listener();
  }

  /** Runs `listener` when draining begins (at once if it already has). */
  onBegin(listener: () => void): void {
    if (this.started) listener();
    else this.listeners.push(listener);
  }
}

/**
 * Work of this process that its background passes yield to: an import's chunks (CONTRACT §24, checking
 * addresses must not slow an import's own rate). While any runs, a pass that could go on at once
 * (address verification) takes one batch and waits for its next interval instead, leaving the CPU to
 * the import; the checks catch up at full speed once it ends. One instance per application, as Draining.
 */
@Injectable()
export class ForegroundWork {
  private running = 0;

  /** True while foreground work runs in this process. */
  get busy(): boolean {
    return this.running > 0;
  }

  /** Runs `work` as foreground work. */
  async during<T>(work: () => Promise<T>): Promise<T> {
    this.running += 1;
    try {
      return await work();
    } finally {
      this.running -= 1;
    }
  }
}

@Global()
@Module({ providers: [Draining, ForegroundWork], exports: [Draining, ForegroundWork] })
export class LifecycleModule {}
