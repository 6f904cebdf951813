import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { ConfigError, parseEncryptionKeys } from '../../config/app-config.js';
import {
  canonicalJson,
  currentKeyId,
  keyId,
  needsReseal,
  safeEqual,
  seal,
  SealError,
  sealedAt,
  unseal,
} from './crypto.js';

describe('canonicalJson', () => {
  it('sorts object keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, 1, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[3,1,{"y":2,"z":1}]},"b":1}',
    );
    expect(canonicalJson({ b: 1, a: 2 })).toBe(canonicalJson({ a: 2, b: 1 }));
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
  });

  it('drops undefined properties like JSON does, and distinguishes types', () => {
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: '1' }));
    expect(canonicalJson({ a: null })).not.toBe(canonicalJson({}));
    expect(canonicalJson(null)).toBe('null');
    expect(canonicalJson(undefined)).toBe('null');
  });

  it('escapes keys and strings, so no two different values collide', () => {
    expect(canonicalJson({ 'a"b': 'c"d' })).toBe('{"a\\"b":"c\\"d"}');
    expect(canonicalJson({ a: 'x', b: 'y' })).not.toBe(canonicalJson({ a: 'x","b":"y' }));
    expect(JSON.parse(canonicalJson({ é: 'ü', '\u2028': 1 }))).toEqual({ é: 'ü', '\u2028': 1 });
  });
});

describe('seal / unseal (AES-256-GCM, bound to the row, with a key id)', () => {
  const key = randomBytes(32);
  const keys = [key];
  const here = sealedAt('inboxes', 'smtp_sealed', '0b7c2a3e-0000-4000-8000-000000000001');
  const there = sealedAt('inboxes', 'smtp_sealed', '0b7c2a3e-0000-4000-8000-000000000002');

  /** A value as the previous release wrote it: `v1.<iv>.<tag>.<ct>`, no associated data. */
  const sealV1 = (plaintext: string, k: Buffer): string => {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', k, iv);
    const body = Buffer.concat([c.update(plaintext, 'utf8'), c.final()]);
    return ['v1', iv, c.getAuthTag(), body]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  };

  it('round-trips, uses a fresh nonce each time, and names the key by id (never the key)', () => {
    const a = seal('{"token":"svc_sk_secret"}', here, keys);
    const b = seal('{"token":"svc_sk_secret"}', here, keys);
    expect(a).not.toBe(b);
    const id = createHash('sha256').update(key).digest('hex').slice(0, 8);
    expect(keyId(key)).toBe(id);
    expect(a.startsWith(`v2.${id}.`)).toBe(true);
    expect(a).toMatch(/^v2\.[0-9a-f]{8}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/);
    expect(a).not.toContain('secret');
    expect(a).not.toContain(key.toString('hex').slice(0, 16));
    expect(a).not.toContain(key.toString('base64url').slice(0, 16));
    expect(unseal(a, here, keys)).toBe('{"token":"svc_sk_secret"}');
    expect(unseal(seal('', here, keys), here, keys)).toBe('');
    expect(unseal(seal('ünïcödé ✓', here, keys), here, keys)).toBe('ünïcödé ✓');
  });

  it('refuses a value moved to another row, column or table', () => {
    const sealed = seal('password', here, keys);
    expect(() => unseal(sealed, there, keys)).toThrow(SealError);
    expect(() =>
      unseal(sealed, sealedAt('inboxes', 'imap_sealed', '0b7c2a3e-0000-4000-8000-000000000001'), keys),
    ).toThrow(/does not authenticate for inboxes\.imap_sealed/);
    expect(() => unseal(sealed, sealedAt('webhook_endpoints', 'secret_sealed', 1), keys)).toThrow(SealError);
    expect(unseal(sealed, here, keys)).toBe('password');
  });

  it('fails on a wrong key, an unknown key id or any tampering', () => {
    const sealed = seal('payload', here, keys);
    expect(() => unseal(sealed, here, [randomBytes(32)])).toThrow(/not configured/);
    const [v, id, iv, tag, body] = sealed.split('.');
    const flip = (s: string): string => (s[0] === 'A' ? 'B' : 'A') + s.slice(1);
    expect(() => unseal([v, id, flip(iv), tag, body].join('.'), here, keys)).toThrow(SealError);
    expect(() => unseal([v, id, iv, flip(tag), body].join('.'), here, keys)).toThrow(SealError);
    expect(() => unseal([v, id, iv, tag, flip(body)].join('.'), here, keys)).toThrow(SealError);
    // A v2 value relabelled v1 (dropping its key id) does not open: v1 has no associated data.
    expect(() => unseal(['v1', iv, tag, body].join('.'), here, keys)).toThrow(SealError);
    expect(() => unseal(['v3', id, iv, tag, body].join('.'), here, keys)).toThrow(/malformed/);
    expect(() => unseal('garbage', here, keys)).toThrow(/malformed/);
    expect(() => unseal('x', here, keys)).toThrow(/malformed/);
    expect(() => unseal('v2.x.y.z', here, keys)).toThrow(/malformed/);
  });

  it('reads legacy v1 values (no associated data) under any configured key', () => {
    const old = randomBytes(32);
    const legacy = sealV1('legacy secret', old);
    expect(unseal(legacy, here, [old])).toBe('legacy secret');
    expect(unseal(legacy, there, [randomBytes(32), old])).toBe('legacy secret');
    expect(() => unseal(legacy, here, [randomBytes(32)])).toThrow(/any configured key/);
    expect(needsReseal(legacy, [old])).toBe(true);
  });

  it('rotates: a new key prepended still opens the old values; resealing moves them; the old key can go', () => {
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const before = seal('rotating', here, [oldKey]);
    const legacy = sealV1('legacy', oldKey);
    const rotated = [newKey, oldKey];
    expect(unseal(before, here, rotated)).toBe('rotating');
    expect(needsReseal(before, rotated)).toBe(true);
    expect(needsReseal(before, [oldKey])).toBe(false);
    expect(currentKeyId(rotated)).toBe(keyId(newKey));
    // New values use the newest key.
    expect(seal('fresh', here, rotated).split('.')[1]).toBe(keyId(newKey));
    // What secrets:reencrypt does for each value.
    const moved = seal(unseal(before, here, rotated), here, rotated);
    const movedLegacy = seal(unseal(legacy, here, rotated), here, rotated);
    expect(needsReseal(moved, rotated)).toBe(false);
    expect(needsReseal(movedLegacy, rotated)).toBe(false);
    // The old key removed: what was resealed opens, what was not does not.
    expect(unseal(moved, here, [newKey])).toBe('rotating');
    expect(unseal(movedLegacy, here, [newKey])).toBe('legacy');
    expect(() => unseal(before, here, [newKey])).toThrow(
      `under key ${keyId(oldKey)}, which is not configured`,
    );
    expect(() => unseal(legacy, here, [newKey])).toThrow(SealError);
  });

  it('uses ENCRYPTION_KEY by default', () => {
    expect(unseal(seal('default key', here), here)).toBe('default key');
    expect(() => unseal(seal('default key', here), here, keys)).toThrow();
  });
});

describe('ENCRYPTION_KEYS', () => {
  const hex = (): string => randomBytes(32).toString('hex');

  it('takes the list newest first, or ENCRYPTION_KEY alone; refuses bad or repeated keys', () => {
    const [a, b] = [hex(), hex()];
    const listed = parseEncryptionKeys({
      ENCRYPTION_KEYS: ` ${a} , ${Buffer.from(b, 'hex').toString('base64')}`,
    });
    expect(listed.map((k) => k.toString('hex'))).toEqual([a, b]);
    // ENCRYPTION_KEYS wins over ENCRYPTION_KEY (embedded mode keeps setting the latter from .data/).
    expect(parseEncryptionKeys({ ENCRYPTION_KEYS: b, ENCRYPTION_KEY: a })[0].toString('hex')).toBe(b);
    expect(parseEncryptionKeys({ ENCRYPTION_KEY: a })[0].toString('hex')).toBe(a);
    expect(() => parseEncryptionKeys({})).toThrow(ConfigError);
    expect(() => parseEncryptionKeys({ ENCRYPTION_KEYS: `${a},short` })).toThrow(
      /ENCRYPTION_KEYS entry 2 must be 32 bytes/,
    );
    expect(() => parseEncryptionKeys({ ENCRYPTION_KEYS: `${a},${a.toUpperCase()}` })).toThrow(
      /entry 2 repeats/,
    );
    expect(() => parseEncryptionKeys({ ENCRYPTION_KEYS: `${a},short` })).not.toThrow(new RegExp(a));
  });
});

describe('safeEqual', () => {
  it('compares by content and length', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
    expect(safeEqual(Buffer.from('x'), 'x')).toBe(true);
  });
});
