/** Small, well-understood primitives from node:crypto: AES-256-GCM sealing and HMAC helpers. */
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';
import { appConfig } from '../../config/app-config.js';

/**
 * Sealed values (docs/trust/records.md):
 * - `v2.<keyId>.<iv>.<tag>.<ciphertext>` (written): AES-256-GCM with a random 96-bit nonce and the
 *   value's place as associated data (`<table>.<column>.<row id>`, see `sealedAt`), under the
 *   newest key of ENCRYPTION_KEYS; `keyId` names that key (first 8 hex characters of its SHA-256).
 * - `v1.<iv>.<tag>.<ciphertext>` (legacy, read only): no associated data, no key id; every
 *   configured key is tried. `npm run cli -- secrets:reencrypt` rewrites them as v2.
 * All parts are base64url.
 */
const LEGACY = 'v1';
const VERSION = 'v2';

/** Why a sealed value was refused. The message never contains key material or plaintext. */
export class SealError extends Error {}

/** The associated data of a sealed value: where it lives. A value moved elsewhere does not open. */
export function sealedAt(table: string, column: string, row: string | number): string {
  return `${table}.${column}.${row}`;
}

/** A key's public name: the first 8 hex characters of SHA-256(key). Never the key itself. */
export function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

interface Keyring {
  /** The newest key (encrypts) and its id. */
  primary: { id: string; key: Buffer };
  byId: Map<string, Buffer>;
  all: readonly Buffer[];
}

const keyrings = new WeakMap<readonly Buffer[], Keyring>();

function keyringOf(keys: readonly Buffer[]): Keyring {
  let ring = keyrings.get(keys);
  if (!ring) {
    if (keys.length === 0) throw new SealError('no encryption key is configured');
    const byId = new Map<string, Buffer>();
    for (const key of keys) byId.set(keyId(key), key);
    ring = { primary: { id: keyId(keys[0]), key: keys[0] }, byId, all: keys };
    keyrings.set(keys, ring);
  }
  return ring;
}

const configured = (): readonly Buffer[] => appConfig().encryptionKeys;

/** The id of the key new values are sealed with (the first of ENCRYPTION_KEYS). */
export function currentKeyId(keys: readonly Buffer[] = configured()): string {
  return keyringOf(keys).primary.id;
}

/**
 * Seals `plaintext` under the newest key, bound to `aad` (from `sealedAt`): output
 * `v2.<keyId>.<iv>.<tag>.<ciphertext>`.
 */
export function seal(plaintext: string, aad: string, keys: readonly Buffer[] = configured()): string {
  const { primary } = keyringOf(keys);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', primary.key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [
    VERSION,
    primary.id,
    iv.toString('base64url'),
    cipher.getAuthTag().toString('base64url'),
    body.toString('base64url'),
  ].join('.');
}

function open(key: Buffer, iv: string, tag: string, body: string, aad: string | null): string {
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  if (aad !== null) decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}

const B64URL = /^[A-Za-z0-9_-]*$/;

/**
 * Opens a v2 value sealed for `aad` (the key is chosen by its id) or a legacy v1 value (every
 * configured key is tried; v1 carries no associated data). Throws SealError otherwise: malformed,
 * unknown key id, or a value that does not authenticate (wrong key, tampered, or moved from another
 * row or column).
 */
export function unseal(sealed: string, aad: string, keys: readonly Buffer[] = configured()): string {
  const ring = keyringOf(keys);
  const parts = typeof sealed === 'string' ? sealed.split('.') : [];
  if (parts[0] === VERSION && parts.length === 5 && parts.slice(1).every((p) => B64URL.test(p))) {
    const [, id, iv, tag, body] = parts;
    const key = ring.byId.get(id);
    if (!key) throw new SealError(`sealed value is under key ${id}, which is not configured`);
    try {
      return open(key, iv, tag, body, aad);
    } catch {
      throw new SealError(`sealed value does not authenticate for ${aad.split('.', 2).join('.')}`);
    }
  }
  if (parts[0] === LEGACY && parts.length === 4 && parts.slice(1).every((p) => B64URL.test(p))) {
    const [, iv, tag, body] = parts;
    for (const key of ring.all) {
      try {
        return open(key, iv, tag, body, null);
      } catch {
        /* the next key */
      }
    }
    throw new SealError('legacy sealed value does not open with any configured key');
  }
  throw new SealError('sealed value is malformed');
}

/**
 * True when `sealed` is not yet in the current form: legacy v1, or v2 under a key other than the
 * newest. (Says nothing about whether it opens.)
 */
export function needsReseal(sealed: string, keys: readonly Buffer[] = configured()): boolean {
  const parts = sealed.split('.');
  return !(parts[0] === VERSION && parts[1] === keyringOf(keys).primary.id);
}

export function hmacSha256(key: string | Buffer, data: string | Buffer): Buffer {
  return createHmac('sha256', key).update(data).digest();
}

export function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

export function safeEqual(a: Buffer | string, b: Buffer | string): boolean {
  const x = Buffer.isBuffer(a) ? a : Buffer.from(a);
  const y = Buffer.isBuffer(b) ? b : Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A key derived from the pepper for one purpose, so one secret never signs two kinds of thing. */
export function derivedKey(purpose: string): Buffer {
  return hmacSha256(appConfig().apiKeyPepper, `derive:${purpose}`);
}

/** Deterministic JSON: object keys sorted, so equal bodies fingerprint equally. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}
