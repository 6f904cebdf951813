/**
 * Target safety, table-driven: every vector below must be rejected, with an injected resolver for
 * names (no network), plus `localhost.` through the system resolver. A few public controls prove
 * the check is not simply "reject everything".
 */
import { resetConfig } from '../../config/app-config.js';
import {
  addressProblem,
  checkTarget,
  ResolveTimeoutError,
  resolverWithTimeout,
  UnsafeTargetError,
  type ResolvedAddress,
  type Resolver,
} from './target-guard.js';

const zone: Record<string, string[]> = {
  'internal.test': ['10.1.2.3'],
  'rebind.test': ['93.184.216.34', '127.0.0.1'],
  'metadata.test': ['169.254.169.254'],
  'alibaba-metadata.test': ['100.100.100.200'],
  'v6private.test': ['fd00::1'],
  'aws-v6-metadata.test': ['fd00:ec2::254'],
  'mapped.test': ['::ffff:192.168.0.1'],
  'nat64.test': ['64:ff9b::7f00:1'],
  'sixtofour.test': ['2002:a00:1::1'],
  'multicast.test': ['239.1.1.1'],
  'v6loopback.test': ['2606:4700::1111', '::1'],
  'broadcast.test': ['255.255.255.255'],
  'public.test': ['8.8.8.8', '2606:4700::1111'],
};

const resolver: Resolver = (hostname) => {
  if (hostname === 'nxdomain.test')
    return Promise.reject(Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' }));
  if (hostname === 'empty.test') return Promise.resolve([]);
  const list = zone[hostname];
  if (!list) return Promise.reject(new Error('ENOTFOUND'));
  return Promise.resolve(
    list.map((address): ResolvedAddress => ({ address, family: address.includes(':') ? 6 : 4 })),
  );
};

const rejected: Array<[string, string]> = [
  // loopback and odd IPv4 spellings that WHATWG URL normalises to it
  ['loopback', 'https://127.0.0.1/hook'],
  ['loopback short form', 'https://127.1/'],
  ['decimal loopback', 'https://2130706433/'],
  ['decimal loopback over http', 'http://2130706433/'],
  ['hex-dotted loopback', 'https://0x7f.1/'],
  ['octal loopback', 'https://017700000001/'],
  ['hex loopback', 'https://0x7f000001/'],
  ['octal-dotted loopback', 'https://0177.0.0.1/'],
  // private, CGNAT, link-local and metadata
  ['10/8', 'https://10.0.0.1/'],
  ['172.16/12', 'https://172.16.5.4/'],
  ['192.168/16', 'https://192.168.1.1/'],
  ['AWS/GCP metadata', 'https://169.254.169.254/latest/meta-data/'],
  ['CGNAT', 'https://100.64.0.1/'],
  ['CGNAT top', 'https://100.127.255.255/'],
  // multicast, reserved, unspecified, broadcast, benchmarking, documentation
  ['multicast', 'https://224.0.0.1/'],
  ['SSDP multicast', 'https://239.255.255.250/'],
  ['class E reserved', 'https://240.0.0.1/'],
  ['broadcast', 'https://255.255.255.255/'],
  ['unspecified', 'https://0.0.0.0/'],
  ['zero shorthand', 'https://0/'],
  ['TEST-NET-1', 'https://192.0.2.1/'],
  ['benchmarking', 'https://198.18.0.1/'],
  // IPv6 and transition forms
  ['v6 loopback', 'https://[::1]/'],
  ['v6 unspecified', 'https://[::]/'],
  ['v6 link-local', 'https://[fe80::1]/'],
  ['v6 unique local', 'https://[fc00::1]/'],
  ['AWS v6 metadata', 'https://[fd00:ec2::254]/'],
  ['v6 multicast', 'https://[ff02::1]/'],
  ['v6 site-local (deprecated)', 'https://[fec0::1]/'],
  ['v6 documentation', 'https://[2001:db8::1]/'],
  ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/'],
  ['IPv4-mapped hex loopback', 'https://[::ffff:7f00:1]/'],
  ['IPv4-mapped metadata', 'https://[::ffff:169.254.169.254]/'],
  ['IPv4-compatible loopback', 'https://[::127.0.0.1]/'],
  ['RFC 6145 translated private', 'https://[::ffff:0:10.0.0.1]/'],
  ['NAT64 private', 'https://[64:ff9b::10.0.0.1]/'],
  ['NAT64 metadata', 'https://[64:ff9b::a9fe:a9fe]/'],
  ['6to4 loopback', 'https://[2002:7f00:1::]/'],
  ['6to4 private', 'https://[2002:c0a8:101::1]/'],
  ['Teredo client loopback', 'https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/'],
  ['v6 zone id', 'https://[fe80::1%25eth0]/'],
  // scheme, credentials, syntax
  ['plain http', 'http://example.com/hook'],
  ['ftp', 'ftp://example.com/'],
  ['credentials in URL', 'https://user:pass@8.8.8.8/'],
  ['not a URL', 'not a url'],
  ['relative', '/hook'],
  // names resolving to non-public space
  ['localhost', 'https://localhost/'],
  ['subdomain of localhost', 'https://api.localhost/'],
  ['localhost. via the system resolver', 'https://localhost./'],
  ['name → private', 'https://internal.test/'],
  ['name → public and loopback (rebinding bait)', 'https://rebind.test/'],
  ['name → metadata', 'https://metadata.test/'],
  ['name → Alibaba metadata (CGNAT)', 'https://alibaba-metadata.test/'],
  ['name → v6 unique local', 'https://v6private.test/'],
  ['name → AWS v6 metadata', 'https://aws-v6-metadata.test/'],
  ['name → IPv4-mapped private', 'https://mapped.test/'],
  ['name → NAT64 loopback', 'https://nat64.test/'],
  ['name → 6to4 private', 'https://sixtofour.test/'],
  ['name → multicast', 'https://multicast.test/'],
  ['name → public and v6 loopback', 'https://v6loopback.test/'],
  ['name → broadcast', 'https://broadcast.test/'],
  ['name that does not resolve', 'https://nxdomain.test/'],
  ['name with no addresses', 'https://empty.test/'],
];

describe('webhook target guard', () => {
  beforeAll(() => {
    delete process.env.WEBHOOK_ALLOWED_TEST_HOSTS;
    resetConfig();
  });

  it('has at least 40 vectors', () => {
    expect(rejected.length).toBeGreaterThanOrEqual(40);
  });

  it.each(rejected)('rejects %s: %s', async (_label, url) => {
    // 'localhost.' goes through the real resolver; the others through the injected one.
    const use = url.includes('localhost.') ? undefined : resolver;
    await expect(checkTarget(url, use)).rejects.toThrow(UnsafeTargetError);
  });

  it.each([
    ['public v4 literal', 'https://93.184.216.34/hook', '93.184.216.34'],
    ['public v6 literal', 'https://[2606:4700::1111]/', '2606:4700::1111'],
    ['name → only public addresses', 'https://public.test/x?y=1', '8.8.8.8'],
    ['NAT64 of a public address', 'https://[64:ff9b::808:808]/', '64:ff9b::808:808'],
    ['6to4 of a public address', 'https://[2002:808:808::1]/', '2002:808:808::1'],
  ])('accepts %s and pins the checked address', async (_label, url, address) => {
    const checked = await checkTarget(url, resolver);
    expect(checked.address).toBe(address);
    expect(checked.exempt).toBe(false);
  });

  it('bounds name resolution by a deadline (a timeout, not an unsafe target)', async () => {
    const never: Resolver = () => new Promise(() => undefined);
    await expect(checkTarget('https://slow.test/', resolverWithTimeout(never, 30))).rejects.toThrow(
      ResolveTimeoutError,
    );
    const fast = resolverWithTimeout(resolver, 1000);
    expect((await checkTarget('https://public.test/', fast)).address).toBe('8.8.8.8');
  });

  it('classifies addresses after unwrapping embedded IPv4', () => {
    expect(addressProblem('::ffff:8.8.8.8')).toBeNull();
    expect(addressProblem('::ffff:10.0.0.1')).toMatch(/private/);
    expect(addressProblem('64:ff9b::a00:1')).toMatch(/private/);
    expect(addressProblem('2002:a9fe:a9fe::')).toMatch(/linkLocal/);
    expect(addressProblem('100.64.0.1')).toMatch(/carrierGradeNat/);
  });

  it('exempts only exact WEBHOOK_ALLOWED_TEST_HOSTS hostnames, and only when set', async () => {
    await expect(checkTarget('http://127.0.0.1:9/hook', resolver)).rejects.toThrow();
    process.env.WEBHOOK_ALLOWED_TEST_HOSTS = '127.0.0.1';
    resetConfig();
    try {
      const ok = await checkTarget('http://127.0.0.1:9/hook', resolver);
      expect(ok.exempt).toBe(true);
      // A different spelling of a different host is not exempt.
      await expect(checkTarget('http://127.0.0.2/', resolver)).rejects.toThrow();
      await expect(checkTarget('http://localhost/', resolver)).rejects.toThrow();
    } finally {
      delete process.env.WEBHOOK_ALLOWED_TEST_HOSTS;
      resetConfig();
    }
  });
});
