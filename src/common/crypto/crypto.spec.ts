import { randomBytes } from 'node:crypto';
import { canonicalJson, safeEqual, seal, unseal } from './crypto.js';

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

describe('seal / unseal (AES-256-GCM)', () => {
  const key = randomBytes(32);

  it('round-trips and uses a fresh nonce each time', () => {
    const a = seal('{"token":"svc_sk_secret"}', key);
    const b = seal('{"token":"svc_sk_secret"}', key);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/);
    expect(a).not.toContain('secret');
    expect(unseal(a, key)).toBe('{"token":"svc_sk_secret"}');
    expect(unseal(seal('', key), key)).toBe('');
    expect(unseal(seal('ünïcödé ✓', key), key)).toBe('ünïcödé ✓');
  });

  it('fails on a wrong key or any tampering', () => {
    const sealed = seal('payload', key);
    expect(() => unseal(sealed, randomBytes(32))).toThrow();
    const [v, iv, tag, body] = sealed.split('.');
    const flip = (s: string): string => (s[0] === 'A' ? 'B' : 'A') + s.slice(1);
    expect(() => unseal([v, flip(iv), tag, body].join('.'), key)).toThrow();
    expect(() => unseal([v, iv, flip(tag), body].join('.'), key)).toThrow();
    expect(() => unseal([v, iv, tag, flip(body)].join('.'), key)).toThrow();
    expect(() => unseal(['v2', iv, tag, body].join('.'), key)).toThrow();
    expect(() => unseal('garbage', key)).toThrow();
  });

  it('uses ENCRYPTION_KEY by default', () => {
    expect(unseal(seal('default key'))).toBe('default key');
    expect(() => unseal(seal('default key'), key)).toThrow();
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
