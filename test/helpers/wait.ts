import { connect } from 'node:net';

/** Polls `probe` until it returns a truthy value or the timeout passes (then throws with `what`). */
export async function waitFor<T>(
  probe: () => Promise<T | undefined | null | false>,
  what: string,
  timeoutMs = 20000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}

/**
 * Waits until `count()` reaches `target`, for as long as the work progresses: it fails only when the
 * count has not moved for `idleMs` (or after `capMs` in all). A busy machine makes sends slower, not
 * wrong; a fixed deadline turned that into a red run (issue 26).
 */
export async function waitForCount(
  count: () => Promise<number>,
  target: number,
  what: string,
  idleMs = 20000,
  capMs = 300000,
): Promise<number> {
  const start = Date.now();
  let last = -1;
  let movedAt = Date.now();
  let error: unknown;
  while (Date.now() - movedAt < idleMs && Date.now() - start < capMs) {
    try {
      const n = await count();
      if (n >= target) return n;
      if (n !== last) {
        last = n;
        movedAt = Date.now();
      }
    } catch (err) {
      error = err;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(
    `timed out waiting for ${what}: ${last} of ${target}, no progress for ${idleMs} ms${error ? `: ${String(error)}` : ''}`,
  );
}

/** Waits until something accepts TCP connections on 127.0.0.1:`port` (a spawned service listening). */
export async function waitForListening(port: number, what: string, timeoutMs?: number): Promise<void> {
  await waitFor(
    () =>
      new Promise<boolean>((ok) => {
        const socket = connect(port, '127.0.0.1');
        socket.once('connect', () => (socket.destroy(), ok(true)));
        socket.once('error', () => ok(false));
      }),
    what,
    timeoutMs,
  );
}
