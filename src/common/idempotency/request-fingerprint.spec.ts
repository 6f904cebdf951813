import { createHash } from 'node:crypto';
import { canonicalJson, sha256Hex } from '../crypto/crypto.js';
import { requestFingerprint } from './idempotency.interceptor.js';

describe('requestFingerprint', () => {
  it('keeps the fingerprint of a JSON body as before (stored records stay valid)', () => {
    const body = { b: [1, { d: 'x', c: null }], a: 'é' };
    // The formula every existing record was written with.
    const before = sha256Hex(`POST\n/api/v1/contacts\n${canonicalJson(body)}`);
    expect(requestFingerprint('POST', '/api/v1/contacts', body)).toBe(before);
    expect(requestFingerprint('POST', '/api/v1/contacts', { a: 'é', b: [1, { c: null, d: 'x' }] })).toBe(
      before,
    );
    expect(requestFingerprint('POST', '/api/v1/contacts', undefined)).toBe(
      sha256Hex('POST\n/api/v1/contacts\nnull'),
    );
  });

  it('hashes a raw Buffer body over its bytes, never as JSON', () => {
    const bytes = Buffer.from('email,first_name\nada@example.com,Ada\n');
    const expected = createHash('sha256').update('POST\n/api/v1/imports\nraw:').update(bytes).digest('hex');
    expect(requestFingerprint('POST', '/api/v1/imports', bytes)).toBe(expected);
    // Not what canonicalJson of a Buffer would give ({"type":"Buffer","data":[…]} or index keys).
    expect(requestFingerprint('POST', '/api/v1/imports', bytes)).not.toBe(
      sha256Hex(`POST\n/api/v1/imports\n${canonicalJson(bytes)}`),
    );
    // Different bytes, different fingerprint; equal bytes, equal fingerprint.
    expect(requestFingerprint('POST', '/api/v1/imports', Buffer.from(bytes))).toBe(expected);
    const changed = Buffer.from(bytes);
    changed[changed.length - 2] ^= 1;
    expect(requestFingerprint('POST', '/api/v1/imports', changed)).not.toBe(expected);
    // A raw body never collides with a JSON body of the same text.
    expect(requestFingerprint('POST', '/api/v1/imports', bytes)).not.toBe(
      requestFingerprint('POST', '/api/v1/imports', bytes.toString()),
    );
  });

  it('hashes a 64 MiB body over its bytes (no JSON text of it is built)', () => {
    const big = Buffer.alloc(64 * 1024 * 1024, 0x61);
    const expected = createHash('sha256').update('POST\n/api/v1/imports\nraw:').update(big).digest('hex');
    expect(requestFingerprint('POST', '/api/v1/imports', big)).toBe(expected);
  });
});
