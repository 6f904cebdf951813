/**
 * An NXDOMAIN is believed only from a resolver seen to work (src/modules/verification/resolver-trust.ts):
 * a resolver that says no name exists at all (a machine without outside DNS) makes every check
 * `unavailable` (verdict `unknown`, sent), not `no_domain` (verdict `invalid`, never sent). Real DNS over
 * UDP against local servers (test/helpers/dns-server.ts).
 */
import { MailDns } from '../../src/modules/verification/mail-dns.js';
import { startDnsServer, type DnsServer } from '../helpers/dns-server.js';

describe('a resolver that knows no name at all', () => {
  let empty: DnsServer;
  let zoned: DnsServer;

  beforeAll(async () => {
    empty = await startDnsServer();
    zoned = await startDnsServer();
    zoned.add('good.example', { type: 'MX', exchange: 'mx.good.example', priority: 10 });
  });
  afterAll(async () => {
    await empty.close();
    await zoned.close();
  });

  it('answers unavailable, not no_domain, where even the root is unknown; asks the root once a minute', async () => {
    const dns = new MailDns({ servers: [empty.address] });
    expect(await dns.lookup('acme.example')).toEqual({ kind: 'unavailable' });
    expect(await dns.lookup('other.example')).toEqual({ kind: 'unavailable' });
    expect(empty.queries.filter((q) => q === 'NS ')).toHaveLength(1);
  });

  it('believes NXDOMAIN from a resolver that knows the root, or once it answered records', async () => {
    const dns = new MailDns({ servers: [zoned.address] });
    expect(await dns.lookup('missing.example')).toEqual({ kind: 'no_domain' });
    expect(zoned.queries).toContain('NS ');
    // Records seen: later NXDOMAINs are believed without asking the root again.
    zoned.queries.length = 0;
    expect(await dns.lookup('good.example')).toEqual({ kind: 'mx', hosts: ['mx.good.example'] });
    expect(await dns.lookup('gone.example')).toEqual({ kind: 'no_domain' });
    expect(zoned.queries).not.toContain('NS ');
  });
});
