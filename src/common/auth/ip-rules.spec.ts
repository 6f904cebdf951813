import { ipAllowed, isValidCidr } from './ip-rules.js';

describe('source-IP rules', () => {
  it('allows any address when the list is empty', () => {
    expect(ipAllowed('203.0.113.9', [])).toBe(true);
    expect(ipAllowed(undefined, [])).toBe(true);
  });

  it('matches IPv4 addresses and CIDRs', () => {
    expect(ipAllowed('10.1.2.3', ['10.0.0.0/8'])).toBe(true);
    expect(ipAllowed('11.1.2.3', ['10.0.0.0/8'])).toBe(false);
    expect(ipAllowed('192.168.1.255', ['192.168.1.0/24'])).toBe(true);
    expect(ipAllowed('192.168.2.0', ['192.168.1.0/24'])).toBe(false);
    expect(ipAllowed('198.51.100.7', ['198.51.100.7'])).toBe(true);
    expect(ipAllowed('198.51.100.8', ['198.51.100.7'])).toBe(false);
    expect(ipAllowed('8.8.8.8', ['0.0.0.0/0'])).toBe(true);
  });

  it('matches IPv6 addresses and CIDRs', () => {
    expect(ipAllowed('2001:db8::1', ['2001:db8::/32'])).toBe(true);
    expect(ipAllowed('2001:db9::1', ['2001:db8::/32'])).toBe(false);
    expect(ipAllowed('::1', ['::1/128'])).toBe(true);
    expect(ipAllowed('::1', ['::1'])).toBe(true);
    expect(ipAllowed('2001:DB8:0:0::1', ['2001:db8::1'])).toBe(true);
  });

  it('treats an IPv4-mapped IPv6 client address as the IPv4 address', () => {
    expect(ipAllowed('::ffff:10.1.2.3', ['10.0.0.0/8'])).toBe(true);
    expect(ipAllowed('::ffff:127.0.0.1', ['127.0.0.1'])).toBe(true);
    expect(ipAllowed('::ffff:11.1.2.3', ['10.0.0.0/8'])).toBe(false);
  });

  it('treats an IPv4-mapped IPv6 CIDR as its IPv4 range', () => {
    expect(ipAllowed('10.1.2.3', ['::ffff:10.0.0.0/104'])).toBe(true);
    expect(ipAllowed('11.1.2.3', ['::ffff:10.0.0.0/104'])).toBe(false);
    expect(ipAllowed('::ffff:10.1.2.3', ['::ffff:10.0.0.0/104'])).toBe(true);
  });

  it('never matches across families', () => {
    expect(ipAllowed('2001:db8::1', ['0.0.0.0/0'])).toBe(false);
    expect(ipAllowed('10.0.0.1', ['::/0'])).toBe(false);
  });

  it('refuses a missing or unparsable client address, and skips unparsable rules', () => {
    expect(ipAllowed(undefined, ['10.0.0.0/8'])).toBe(false);
    expect(ipAllowed('not-an-ip', ['10.0.0.0/8'])).toBe(false);
    expect(ipAllowed('10.0.0.1', ['garbage', '10.0.0.0/8'])).toBe(true);
    expect(ipAllowed('10.0.0.1', ['garbage'])).toBe(false);
  });

  it('validates CIDRs and plain addresses', () => {
    for (const ok of ['10.0.0.0/8', '10.0.0.1', '::1', '2001:db8::/32', '::ffff:10.0.0.0/104', '0.0.0.0/0']) {
      expect(isValidCidr(ok)).toBe(true);
    }
    for (const bad of [
      '',
      '10.0.0.0/33',
      '2001:db8::/129',
      '10.0.0',
      'example.com',
      '10.0.0.0/',
      '/8',
      '1.2.3.4/8/8',
      '010.0.0.1',
      '0x0a.0.0.1',
      '10.1',
      '10.0.0.0/+8',
    ]) {
      expect(isValidCidr(bad)).toBe(false);
    }
  });
});
