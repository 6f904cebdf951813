/**
 * The in-process wake-up of the `reply-categorize` sweep: ingestion calls `notifyReplyRecorded()`
 * after a reply's transaction committed, so the reply is categorised now rather than at the sweep's
 * next tick. Polling remains the guarantee (other processes, a missed wake-up).
 */
type Waker = () => void;
const wakers = new Set<Waker>();

/** The sweep registers here; the returned function unregisters it. */
export function onReplyRecorded(wake: Waker): () => void {
  wakers.add(wake);
  return () => wakers.delete(wake);
}

export function notifyReplyRecorded(): void {
  for (const wake of wakers) wake();
}
