/**
 * The one timer abstraction of the worker role. A loop runs `pass()` again and again: right away when
 * the pass says there is more to do, otherwise after `intervalMs` — or sooner, when something calls
 * `wake()` (a LISTEN/NOTIFY, a commit in this process, freed capacity). A pass that throws is logged
 * and the loop goes on. `stop()` prevents further passes and waits for the running one to end.
 * Timers are unref'd, so a loop never keeps a process alive on its own.
 */
import { logger } from '../logging/logger.js';

export interface LoopOptions {
  /** Name in logs and in the worker registry. */
  name: string;
  /** Pause after a pass that found no more work (read before each pause, so it may change). */
  intervalMs: number | (() => number);
  /** One unit of work; resolves true when more work is waiting right now. */
  pass: () => Promise<boolean>;
  /** Log message for a pass that throws (default "worker loop pass failed"). */
  errorMessage?: string;
}

export class Loop {
  readonly name: string;
  private timer: NodeJS.Timeout | undefined;
  private sleeping: (() => void) | null = null;
  private wokenEarly = false;
  private running: Promise<void> | undefined;
  private started = false;
  private stopped = false;

  constructor(private readonly options: LoopOptions) {
    this.name = options.name;
  }

  /** Starts the loop; the first pass runs after `firstDelayMs`. */
  start(firstDelayMs = 0): void {
    if (this.started) return;
    this.started = true;
    this.running = this.sleep(firstDelayMs).then(() => this.run());
  }

  /** Ends the current pause now (or the next one, if a pass is running). */
  wake(): void {
    const sleeping = this.sleeping;
    if (sleeping) sleeping();
    else this.wokenEarly = true;
  }

  /** No pass starts after this; resolves when the running pass (if any) has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.running;
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let more = false;
      try {
        more = await this.options.pass();
      } catch (err) {
        if (this.stopped) break;
        logger.error({ loop: this.name, err }, this.options.errorMessage ?? 'worker loop pass failed');
      }
      if (this.stopped) break;
      if (!more) {
        const { intervalMs } = this.options;
        await this.sleep(typeof intervalMs === 'function' ? intervalMs() : intervalMs);
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.wokenEarly || this.stopped) {
      this.wokenEarly = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = (): void => {
        if (this.timer) clearTimeout(this.timer);
        this.timer = undefined;
        this.sleeping = null;
        this.wokenEarly = false;
        resolve();
      };
      this.sleeping = done;
      this.timer = setTimeout(done, ms);
      this.timer.unref?.();
    });
  }
}
