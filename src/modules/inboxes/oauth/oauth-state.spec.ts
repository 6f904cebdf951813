import { stateSigned } from './inbox-oauth.service.js';

describe('OAuth state signature', () => {
  it('refuses anything that is not nonce.signature made here', () => {
    for (const forged of [
      undefined,
      null,
      42,
      '',
      'abc',
      'a.b.c',
      'nonce.',
      '.sig',
      'nonce.AAAA',
      'x'.repeat(300),
    ]) {
      expect(stateSigned(forged)).toBe(false);
    }
  });
});
