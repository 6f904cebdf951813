/**
 * Webhook signing secrets and signatures.
 * - `X-Service-Signature: sha256=<hex>`: HMAC-SHA256 over the raw body, keyed with the whole
 *   `whsec_…` string (as GitHub keys with the string you gave it).
 * - Standard Webhooks: `webhook-signature: v1,<base64>` over `id.timestamp.body`, keyed with the
 *   base64-decoded bytes after `whsec_`.
 */
import { createHmac, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

export function serviceSignature(secret: string, body: string | Buffer): string {
  return 'sha256=' + createHmac('sha256', secret).update(body).digest('hex');
}

export function standardKey(secret: string): Buffer {
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}

export function standardSignature(
  key: Buffer,
  id: string,
  timestampSeconds: number,
  body: string | Buffer,
): string {
  const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.`).update(body).digest('base64');
  return `v1,${mac}`;
}

export interface SignedHeaders {
  'content-type': string;
  'x-service-signature': string;
  'x-service-event-id': string;
  'x-service-event': string;
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
  [name: string]: string;
}

/** Every header of one attempt; the event id is stable across retries, the timestamp is not. */
export function signedHeaders(
  secret: string,
  eventId: string,
  eventType: string,
  body: string | Buffer,
  now: Date = new Date(),
  standardKeyBytes: Buffer = standardKey(secret),
): SignedHeaders {
  const ts = Math.floor(now.getTime() / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': 'outreach-service-webhooks/1',
    'x-service-signature': serviceSignature(secret, body),
    'x-service-event-id': eventId,
    'x-service-event': eventType,
    'webhook-id': eventId,
    'webhook-timestamp': String(ts),
    'webhook-signature': standardSignature(standardKeyBytes, eventId, ts, body),
  };
}
