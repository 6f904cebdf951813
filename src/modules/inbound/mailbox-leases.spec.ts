import { randomUUID } from 'node:crypto';
import { Slots } from '../../common/worker/slots.js';
import { ownerOf } from './mailbox-leases.js';

describe('rendezvous hashing of mailboxes over workers', () => {
  const inboxes = Array.from({ length: 3000 }, () => randomUUID());

  it('spreads mailboxes evenly over the live workers', () => {
    const workers = ['w1', 'w2', 'w3'];
    const counts = new Map<string, number>();
    for (const id of inboxes) {
      const owner = ownerOf(id, workers)!;
      counts.set(owner, (counts.get(owner) ?? 0) + 1);
    }
    for (const w of workers) {
      expect(counts.get(w)).toBeGreaterThan(800);
      expect(counts.get(w)).toBeLessThan(1200);
    }
  });

  it('a worker that joins takes only its share; one that leaves moves only its own mailboxes', () => {
    const before = new Map(inboxes.map((id) => [id, ownerOf(id, ['w1', 'w2', 'w3'])]));
    const joined = inboxes.filter((id) => ownerOf(id, ['w1', 'w2', 'w3', 'w4']) !== before.get(id));
    expect(joined.every((id) => ownerOf(id, ['w1', 'w2', 'w3', 'w4']) === 'w4')).toBe(true);
    expect(joined.length).toBeGreaterThan(600);
    expect(joined.length).toBeLessThan(900);
    const left = inboxes.filter((id) => ownerOf(id, ['w1', 'w3']) !== before.get(id));
    expect(left.every((id) => before.get(id) === 'w2')).toBe(true);
  });

  it('the same answer in every process (no state, order of the list irrelevant)', () => {
    for (const id of inboxes.slice(0, 100)) {
      expect(ownerOf(id, ['a', 'b', 'c'])).toBe(ownerOf(id, ['c', 'a', 'b']));
    }
    expect(ownerOf(inboxes[0], [])).toBeUndefined();
  });
});

describe('Slots', () => {
  it('runs at most `size` at once, the others in arrival order', async () => {
    const slots = new Slots(2);
    let running = 0;
    let most = 0;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        slots.run(async () => {
          running += 1;
          most = Math.max(most, running);
          order.push(i);
          await new Promise((r) => setTimeout(r, 5));
          running -= 1;
        }),
      ),
    );
    expect(most).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
    expect(slots.inUse).toBe(0);
  });
});
