/**
 * API token format (docs/api.md, GitHub's format): `svc_sk_` or `svc_pk_`, 32 random base62
 * characters, then a 6-character base62 CRC32 of everything before it. A token whose checksum is
 * wrong is rejected without touching the database.
 */
import { randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { hmacSha256 } from '../crypto/crypto.js';

export type KeyTier = 'workspace' | 'provisioning';

export const TOKEN_PREFIX: Record<KeyTier, string> = { workspace: 'svc_sk_', provisioning: 'svc_pk_' };
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const TOKEN_RE = /^svc_(sk|pk)_[0-9A-Za-z]{38}$/;

function base62(n: number, width: number): string {
  let out = '';
  let v = n;
  while (v > 0) {
    out = ALPHABET[v % 62] + out;
    v = Math.floor(v / 62);
  }
  return out.padStart(width, '0');
}

export function checksum(body: string): string {
  return base62(crc32(body) >>> 0, 6);
}

export function generateToken(tier: KeyTier): string {
  let random = '';
  for (let i = 0; i < 32; i++) random += ALPHABET[randomInt(62)];
  const body = TOKEN_PREFIX[tier] + random;
  return body + checksum(body);
}

/** The tier a well-formed token claims, or null when its shape or checksum is wrong. */
export function parseToken(token: string): KeyTier | null {
  if (!TOKEN_RE.test(token)) return null;
  if (checksum(token.slice(0, -6)) !== token.slice(-6)) return null;
  return token.startsWith(TOKEN_PREFIX.workspace) ? 'workspace' : 'provisioning';
}

export function hashToken(token: string, pepper: string): string {
  return hmacSha256(pepper, token).toString('hex');
}

export const displayPrefix = (token: string): string => token.slice(0, 12);
