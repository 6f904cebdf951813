/**
 * Tuning knobs of the webhook workers. The contract's settings (retry schedule, allowed test hosts)
 * live in appConfig(); these are module-local overrides, read when the workers start.
 * - WEBHOOK_TIMEOUT_MS: per-attempt deadline (default 10000); tests shorten it.
 * - WEBHOOK_CONCURRENCY: attempts in flight per process (default 256; at most 64
 *   connections per endpoint origin, the rest wait in its pool).
 * - WEBHOOK_POLL_MS: how often the outbox and due deliveries are polled (default 250).
 */
export interface WebhookSettings {
  timeoutMs: number;
  concurrency: number;
  pollMs: number;
}

function intEnv(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) return fallback;
  return n;
}

export function webhookSettings(): WebhookSettings {
  return {
    timeoutMs: intEnv('WEBHOOK_TIMEOUT_MS', 10_000, 50, 60_000),
    concurrency: intEnv('WEBHOOK_CONCURRENCY', 256, 1, 2048),
    pollMs: intEnv('WEBHOOK_POLL_MS', 250, 10, 60_000),
  };
}

/** Attempts per delivery, and consecutive failed attempts that disable an endpoint. */
export const MAX_ATTEMPTS = 5;
export const DISABLE_AFTER_FAILURES = 5;
