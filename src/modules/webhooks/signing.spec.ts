/** Signatures verify with libraries this project did not write: GitHub's and Standard Webhooks'. */
import { verify as octokitVerify } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import { generateSecret, signedHeaders } from './signing.js';

describe('webhook signing', () => {
  const body = JSON.stringify({ id: 'e1', version: 'v1', event: 'contact.created', data: { ü: '✓' } });

  it('makes whsec_ secrets of 32 random bytes', () => {
    const s = generateSecret();
    expect(s).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(s.slice(6), 'base64')).toHaveLength(32);
    expect(generateSecret()).not.toBe(s);
  });

  it('X-Service-Signature verifies with @octokit/webhooks-methods (keyed with the whole secret)', async () => {
    const secret = generateSecret();
    const h = signedHeaders(secret, '5c7c2f4e-1111-4a4a-9b9b-123456789abc', 'contact.created', body);
    expect(h['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(await octokitVerify(secret, body, h['x-service-signature'])).toBe(true);
    expect(await octokitVerify(generateSecret(), body, h['x-service-signature'])).toBe(false);
    expect(await octokitVerify(secret, body + ' ', h['x-service-signature'])).toBe(false);
  });

  it('webhook-signature verifies with the standardwebhooks package', () => {
    const secret = generateSecret();
    const id = '5c7c2f4e-1111-4a4a-9b9b-123456789abc';
    const h = signedHeaders(secret, id, 'contact.created', body);
    expect(h['webhook-id']).toBe(id);
    expect(h['x-service-event-id']).toBe(id);
    expect(h['webhook-signature']).toMatch(/^v1,/);
    const wh = new Webhook(secret);
    expect(wh.verify(body, h)).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateSecret()).verify(body, h)).toThrow();
    expect(() => wh.verify(body.replace('v1', 'v2'), h)).toThrow();
  });
});
