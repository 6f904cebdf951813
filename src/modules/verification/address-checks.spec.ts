import { checkOffline, editDistance, isRoleLocalPart, listSizes, typoSuggestion } from './address-checks.js';
import { statusOf } from './verdict.js';

describe('address checks without the network', () => {
  it('loads every list from its package, none empty', () => {
    const sizes = listSizes();
    expect(sizes.disposable).toBeGreaterThan(1000);
    expect(sizes.free_mail).toBeGreaterThan(1000);
    expect(sizes.typo_domains).toBeGreaterThan(5);
    // role-based-email-addresses 3.1.0 holds 1,018 local parts; a few person-like ones are left out.
    expect(sizes.role).toBeGreaterThan(900);
  });

  it('takes role local parts from role-based-email-addresses, less the person-like entries', () => {
    for (const role of ['info', 'sales', 'support', 'noreply', 'postmaster', 'careers', 'hr', 'ventas'])
      expect([role, isRoleLocalPart(role)]).toEqual([role, true]);
    // On the package's list, but a person as often as a function: names, initials, one-holder titles.
    for (const person of ['per', 'alexa', 'gardner', 'ceo', 'president', 'pm', 'md', 'la'])
      expect([person, isRoleLocalPart(person)]).toEqual([person, false]);
    expect(isRoleLocalPart('Customer.Service+2026')).toBe(true);
    expect(isRoleLocalPart('"Webinars"')).toBe(true);
    expect(isRoleLocalPart('jane.doe')).toBe(false);
  });

  it.each([
    ['', 'syntax'],
    ['plainaddress', 'syntax'],
    ['a@b', 'syntax'],
    ['a@[192.0.2.1]', 'syntax'],
    ['a@acme.com.', 'syntax'],
    ['a..b@acme.com', 'syntax'],
    [`${'x'.repeat(250)}@acme.com`, 'syntax'],
    [`${'x'.repeat(65)}@acme.com`, 'syntax'],
    ['a@-acme.com', 'syntax'],
    // Lengths are octets as sent: the local part in UTF-8 (65 octets), the domain as A-labels (256 in all).
    [`${'ö'.repeat(32)}x@acme.com`, 'syntax'],
    [`jane@${Array.from({ length: 4 }, () => `ü${'a'.repeat(50)}`).join('.')}.x-64f02936.test`, 'syntax'],
  ])('%j → syntax', (address) => {
    expect(checkOffline(address)).toEqual({ ok: false, reasons: ['syntax'] });
  });

  it('never throws on anything', () => {
    for (const v of [
      null,
      undefined,
      42,
      {},
      '@',
      '"@"@x.com',
      '\u0000@x.com',
      'a@xn--.com',
      'a@' + 'é'.repeat(300),
    ]) {
      expect(() => checkOffline(v)).not.toThrow();
    }
  });

  it('takes quoted local parts, mixed case and IDNs (as A-labels)', () => {
    expect(checkOffline('"john doe"@Acme.COM')).toMatchObject({ ok: true, domain: 'acme.com', reasons: [] });
    expect(checkOffline('Jane@BÜCHER.de')).toMatchObject({ ok: true, domain: 'xn--bcher-kva.de' });
    expect(checkOffline('a@mail.acme.co.uk')).toMatchObject({ ok: true, registrable: 'acme.co.uk' });
    expect(checkOffline(`${'ö'.repeat(32)}@acme.com`)).toMatchObject({ ok: true, domain: 'acme.com' });
    expect(
      checkOffline(`${'x'.repeat(64)}@${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(57)}.com`),
    ).toMatchObject({
      ok: true,
    });
  });

  it('finds disposable, free-mail and role addresses', () => {
    expect(checkOffline('x@mailinator.com')).toMatchObject({ reasons: ['disposable'] });
    expect(checkOffline('x@sub.mailinator.com')).toMatchObject({ reasons: ['disposable'] });
    expect(checkOffline('x@gmail.com')).toMatchObject({ reasons: ['free_mail'] });
    expect(checkOffline('Sales+eu@acme.com')).toMatchObject({ reasons: ['role'] });
    expect(checkOffline('"info"@acme.com')).toMatchObject({ reasons: ['role'] });
  });

  it('suggests the provider meant for a typo, within a small edit distance', () => {
    // gmial.com is also on the disposable list (typo-squatted domains collect mail).
    const typo = checkOffline('jo@gmial.com');
    expect(typo).toMatchObject({ suggestion: 'jo@gmail.com' });
    expect(typo.reasons).toContain('typo');
    expect(typoSuggestion('hotmial.com')).toBe('hotmail.com');
    expect(typoSuggestion('yaho.com')).toBe('yahoo.com');
    // The package alone suggests me.com for acme.com: two edits on a short name is not a typo.
    expect(typoSuggestion('acme.com')).toBeNull();
    expect(typoSuggestion('gmail.com')).toBeNull();
    expect(editDistance('gmial', 'gmail')).toBe(1);
  });

  it('maps reasons to the verdict of §24', () => {
    expect(statusOf(['no_mx', 'role'])).toBe('invalid');
    expect(statusOf(['mailbox_unknown'])).toBe('invalid');
    expect(statusOf(['catch_all', 'free_mail'])).toBe('risky');
    expect(statusOf(['dns_unavailable', 'role'])).toBe('unknown');
    expect(statusOf(['free_mail'])).toBe('valid');
    expect(statusOf([], true)).toBe('unknown');
  });
});
