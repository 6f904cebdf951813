/** A small wakeable sleep for worker loops: resolves after `ms` or as soon as `wake()` is called. */
export class Waker {
  private pending: (() => void) | null = null;
  private woken = false;

  wake(): void {
    this.woken = true;
    const p = this.pending;
    this.pending = null;
    p?.();
  }

  sleep(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending = null;
        resolve();
      }, ms);
      this.pending = () => {
        clearTimeout(timer);
        this.woken = false;
        resolve();
      };
    });
  }
}
