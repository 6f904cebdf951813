import { emailDomain, isFreeMailDomain } from './free-mail.js';

describe('free-mail domains (free-email-domains package)', () => {
  it('knows the big providers and not company domains', () => {
    for (const d of ['gmail.com', 'yahoo.com', 'outlook.com', 'hotmail.com', 'GMX.de', 'proton.me']) {
      expect([d, isFreeMailDomain(d)]).toEqual([d, true]);
    }
    for (const d of ['acme.test', 'example.com', 'stripe.com', 'nhs.uk']) {
      expect([d, isFreeMailDomain(d)]).toEqual([d, false]);
    }
  });

  it('treats a subdomain of a free provider as free, but not a bare public suffix', () => {
    expect(isFreeMailDomain('eu.gmail.com')).toBe(true);
    expect(isFreeMailDomain('mail.acme.test')).toBe(false);
  });

  it('reads the domain of an address', () => {
    expect(emailDomain('A@Acme.Test')).toBe('acme.test');
    expect(emailDomain('x@gmail.com.')).toBe('gmail.com');
    expect(emailDomain('unknown')).toBeNull();
    expect(emailDomain('a@localhost')).toBeNull();
    expect(emailDomain('@acme.test')).toBeNull();
    expect(emailDomain(null)).toBeNull();
  });
});
