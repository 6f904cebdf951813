import { Loop } from './loop.js';

const tick = (ms = 5): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Waits until `done()` holds (polling every few ms, up to 5 s): the tests follow the loop's progress
 * rather than a fixed few milliseconds, which a loaded CI machine (GC pauses of a 3 GB test heap)
 * overran once.
 */
async function until(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!done() && Date.now() < deadline) await tick(2);
}

describe('Loop', () => {
  it('runs again at once while a pass reports more work, then waits the interval', async () => {
    let passes = 0;
    const loop = new Loop({ name: 't', intervalMs: 60_000, pass: async () => ++passes < 3 });
    loop.start();
    await until(() => passes >= 3);
    await tick(30);
    expect(passes).toBe(3); // two "more" passes rerun at once; the third sleeps a minute
    await loop.stop();
  });

  it('wake() ends the pause at once, and a wake during a pass skips the next pause', async () => {
    let passes = 0;
    let release: () => void = () => undefined;
    const loop = new Loop({
      name: 't',
      intervalMs: 60_000,
      pass: async () => {
        passes += 1;
        if (passes === 2) await new Promise<void>((r) => (release = r));
        return false;
      },
    });
    loop.start();
    await until(() => passes >= 1);
    await tick();
    expect(passes).toBe(1);
    loop.wake(); // sleeping: wakes now
    await until(() => passes >= 2);
    expect(passes).toBe(2); // pass 2 is running (held)
    loop.wake(); // during a pass: the next pause is skipped
    release();
    await until(() => passes >= 3);
    expect(passes).toBe(3);
    await loop.stop();
  });

  it('stop() waits for the running pass and no pass starts after it', async () => {
    let finished = false;
    let passes = 0;
    const loop = new Loop({
      name: 't',
      intervalMs: 0,
      pass: async () => {
        passes += 1;
        await tick(40);
        finished = true;
        return true;
      },
    });
    loop.start();
    await tick();
    await loop.stop();
    expect(finished).toBe(true);
    const after = passes;
    await tick(60);
    expect(passes).toBe(after);
    expect(loop.isStopped).toBe(true);
  });

  it('a pass that throws is logged and the loop goes on', async () => {
    let passes = 0;
    const loop = new Loop({
      name: 't',
      intervalMs: 1,
      pass: async () => {
        passes += 1;
        if (passes === 1) throw new Error('boom');
        return false;
      },
    });
    loop.start();
    await until(() => passes >= 2);
    expect(passes).toBeGreaterThanOrEqual(2);
    await loop.stop();
  });

  it('waits firstDelayMs before the first pass', async () => {
    let passes = 0;
    const loop = new Loop({ name: 't', intervalMs: 60_000, pass: async () => (passes++, false) });
    loop.start(60_000);
    await tick(20);
    expect(passes).toBe(0);
    loop.wake();
    await until(() => passes >= 1);
    expect(passes).toBe(1);
    await loop.stop();
  });
});
