import { checksum, displayPrefix, generateToken, hashToken, parseToken } from './token.js';

const flip = (token: string, at: number): string => {
  const c = token[at];
  return token.slice(0, at) + (c === 'a' ? 'b' : 'a') + token.slice(at + 1);
};

describe('API token format', () => {
  it('generates svc_sk_/svc_pk_ + 32 base62 + a 6-character base62 CRC32 checksum', () => {
    const sk = generateToken('workspace');
    const pk = generateToken('provisioning');
    expect(sk).toMatch(/^svc_sk_[0-9A-Za-z]{38}$/);
    expect(pk).toMatch(/^svc_pk_[0-9A-Za-z]{38}$/);
    expect(sk.slice(-6)).toBe(checksum(sk.slice(0, -6)));
    expect(parseToken(sk)).toBe('workspace');
    expect(parseToken(pk)).toBe('provisioning');
    expect(displayPrefix(sk)).toBe(sk.slice(0, 12));
    const many = new Set(Array.from({ length: 200 }, () => generateToken('workspace')));
    expect(many.size).toBe(200);
  });

  it('rejects a token with any single character changed', () => {
    const token = generateToken('workspace');
    for (let at = 7; at < token.length; at++) expect(parseToken(flip(token, at))).toBeNull();
  });

  it('rejects a token whose tier prefix was swapped (the checksum covers it)', () => {
    const token = generateToken('workspace');
    expect(parseToken(token.replace('svc_sk_', 'svc_pk_'))).toBeNull();
  });

  it('rejects wrong shapes', () => {
    const token = generateToken('workspace');
    for (const bad of [
      '',
      'svc_sk_',
      token.slice(0, -1),
      `${token}0`,
      ` ${token}`,
      token.replace('svc_', 'svx_'),
      `svc_xk_${token.slice(7)}`,
      token.replace(/.$/, '-'),
    ]) {
      expect(parseToken(bad)).toBeNull();
    }
  });

  it('pads the checksum to 6 characters', () => {
    for (let i = 0; i < 500; i++) expect(checksum(`svc_sk_${i}`)).toMatch(/^[0-9A-Za-z]{6}$/);
  });

  it('hashes with the pepper: deterministic, pepper-dependent, never the token itself', () => {
    const token = generateToken('workspace');
    const a = hashToken(token, 'pepper-one-0123456789');
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(hashToken(token, 'pepper-one-0123456789')).toBe(a);
    expect(hashToken(token, 'pepper-two-0123456789')).not.toBe(a);
    expect(a).not.toContain(token);
  });
});
