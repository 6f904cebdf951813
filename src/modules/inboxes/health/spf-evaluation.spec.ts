/**
 * RFC 7208's processing limits in the health check's SPF evaluation, against a local DNS server
 * speaking real DNS over UDP (test/helpers/dns-server.ts): the server counts every question, so each
 * bound is measured where the queries arrive.
 */
import { randomUUID } from 'node:crypto';
import { startDnsServer, type DnsServer } from '../../../../test/helpers/dns-server.js';
import { healthResolver, type HealthResolver } from './dns-resolver.js';
import { evaluateSpf, parseSpfRecord } from './spf-evaluation.js';

const IP = '192.0.2.10';

describe('SPF evaluation within RFC 7208 limits (real DNS over UDP)', () => {
  let dns: DnsServer;
  const resolvers: HealthResolver[] = [];
  const resolver = (deadlineMs = 8000): HealthResolver => {
    const r = healthResolver([dns.address], deadlineMs);
    resolvers.push(r);
    return r;
  };
  const fresh = (label: string): string => `${label}-${randomUUID().slice(0, 8)}.test`;
  /** Runs one evaluation and counts the questions it asked. */
  const evaluate = async (domain: string, ip = IP, deadlineMs?: number) => {
    const before = dns.queries.length;
    const answer = await evaluateSpf(domain, ip, resolver(deadlineMs).resolve);
    return { ...answer, asked: dns.queries.slice(before) };
  };

  beforeAll(async () => {
    dns = await startDnsServer();
  });
  afterAll(async () => {
    for (const r of resolvers) r.close();
    await dns.close();
  });

  it('pass through include and redirect; ip4 ranges, a and mx match the evaluated address', async () => {
    const d = fresh('ok');
    dns.add(d, { type: 'TXT', data: `v=spf1 include:_spf.${d} -all` });
    dns.add(`_spf.${d}`, { type: 'TXT', data: `v=spf1 redirect=_r.${d}` });
    dns.add(`_r.${d}`, { type: 'TXT', data: 'v=spf1 ip4:192.0.2.0/24 ~all' });
    const r = await evaluate(d);
    expect(r).toMatchObject({ result: 'pass', record: `v=spf1 include:_spf.${d} -all`, lookups: 2 });

    const m = fresh('mx');
    dns.add(m, { type: 'TXT', data: 'v=spf1 a mx ~all' }, { type: 'MX', exchange: `mx.${m}`, priority: 5 });
    dns.add(`mx.${m}`, { type: 'A', address: IP });
    expect((await evaluate(m)).result).toBe('pass');
    expect((await evaluate(m, '198.51.100.7')).result).toBe('softfail');
    // An IPv4 address asks for A records only, never AAAA.
    expect((await evaluate(m)).asked.filter((q) => q.startsWith('AAAA'))).toEqual([]);
  });

  it('nine mx: mechanisms of 10 hosts each: one A question per host, nothing more (no AAAA, no retries)', async () => {
    const d = fresh('hostile');
    const mechanisms = Array.from({ length: 9 }, (_, i) => `mx:m${i}.${d}`).join(' ');
    dns.add(d, { type: 'TXT', data: `v=spf1 ${mechanisms} -all` });
    for (let i = 0; i < 9; i++) {
      for (let h = 0; h < 10; h++) {
        dns.add(`m${i}.${d}`, { type: 'MX', exchange: `h${h}.m${i}.${d}`, priority: h });
        dns.add(`h${h}.m${i}.${d}`, { type: 'A', address: `198.51.100.${h + 1}` });
      }
    }
    const r = await evaluate(d);
    expect(r.result).toBe('fail');
    expect(r.lookups).toBe(9);
    // RFC 7208's own bound for this record: its TXT, 9 MX, 9 × 10 A.
    expect(r.asked).toHaveLength(1 + 9 + 90);
    expect(r.asked.filter((q) => q.startsWith('AAAA'))).toEqual([]);
  });

  it('an mx with more than 10 hosts is a permerror before any host is resolved', async () => {
    const d = fresh('wide');
    dns.add(d, { type: 'TXT', data: `v=spf1 mx:big.${d} -all` });
    for (let h = 0; h < 11; h++) {
      dns.add(`big.${d}`, { type: 'MX', exchange: `h${h}.${d}`, priority: h });
      dns.add(`h${h}.${d}`, { type: 'A', address: IP });
    }
    const r = await evaluate(d);
    expect(r.result).toBe('permerror');
    expect(r.reason).toMatch(/11 mail hosts/);
    expect(r.asked).toEqual([`TXT ${d}`, `MX big.${d}`]);
  });

  it('an include loop and a chain of 11 includes stop at the 11th lookup: permerror', async () => {
    const a = fresh('loop-a');
    const b = fresh('loop-b');
    dns.add(a, { type: 'TXT', data: `v=spf1 include:${b} -all` });
    dns.add(b, { type: 'TXT', data: `v=spf1 include:${a} -all` });
    const loop = await evaluate(a);
    expect(loop.result).toBe('permerror');
    expect(loop.reason).toMatch(/more than 10 DNS lookups/);
    expect(loop.asked).toHaveLength(11); // the domain's TXT, then one per counted include

    const c = fresh('chain');
    const includes = Array.from({ length: 12 }, (_, i) => `include:n${i}.${c}`).join(' ');
    dns.add(c, { type: 'TXT', data: `v=spf1 ${includes} -all` });
    for (let i = 0; i < 12; i++) dns.add(`n${i}.${c}`, { type: 'TXT', data: 'v=spf1 ip4:203.0.113.1 -all' });
    const chain = await evaluate(c);
    expect(chain).toMatchObject({ result: 'permerror', lookups: 11 });
    expect(chain.asked).toHaveLength(11);
  });

  it('a third void lookup is a permerror', async () => {
    const d = fresh('void');
    dns.add(d, { type: 'TXT', data: `v=spf1 a:x1.${d} a:x2.${d} exists:x3.${d} a:x4.${d} -all` });
    const r = await evaluate(d);
    expect(r).toMatchObject({ result: 'permerror', voids: 3 });
    expect(r.reason).toMatch(/more than 2 void/);
    expect(r.asked).toHaveLength(4);
  });

  it('ptr looks at the first 10 reverse names only', async () => {
    const d = fresh('ptr');
    dns.add(d, { type: 'TXT', data: 'v=spf1 ptr -all' });
    // 20 names (what fits a UDP answer here); 10 of them are resolved.
    for (let i = 0; i < 20; i++) {
      dns.add('10.2.0.192.in-addr.arpa', { type: 'PTR', domain: `n${i}.${d}` });
      dns.add(`n${i}.${d}`, { type: 'A', address: '198.51.100.1' });
    }
    const r = await evaluate(d);
    expect(r.result).toBe('fail');
    expect(r.asked.filter((q) => q.startsWith('A '))).toHaveLength(10);
  });

  it('a resolver that does not answer is a temperror, also inside an include, within the deadline', async () => {
    const d = fresh('hang');
    dns.add(d, { type: 'TXT', data: `v=spf1 include:slow.${d} -all` });
    dns.silentNames.add(`slow.${d}`);
    const started = Date.now();
    const r = await evaluate(d, IP, 2000);
    expect(r.result).toBe('temperror');
    expect(r.reason).toMatch(/ETIMEOUT/);
    expect(Date.now() - started).toBeLessThan(3000);

    dns.silentNames.add(d);
    expect((await evaluate(d, IP, 1000)).result).toBe('temperror');
  });

  it('permerror for syntax: unknown mechanisms, two redirects, a bad address; none for no record', async () => {
    expect(() => parseSpfRecord('v=spf1 foo:bar -all')).toThrow(/unknown mechanism/);
    expect(() => parseSpfRecord('v=spf1 redirect=a.test redirect=b.test')).toThrow(/more than one/);
    expect(() => parseSpfRecord('v=spf1 ip4:300.1.1.1 -all')).toThrow(/invalid address/);
    expect(() => parseSpfRecord('v=spf1 a/33 -all')).toThrow(/prefix length/);
    expect(parseSpfRecord('v=spf1 mx/24 ip6:2001:db8::/32 unknown=x ?all').mechanisms).toHaveLength(3);

    const none = fresh('none');
    dns.add(none, { type: 'MX', exchange: `mx.${none}`, priority: 1 });
    expect((await evaluate(none)).result).toBe('none');
    const two = fresh('two');
    dns.add(two, { type: 'TXT', data: 'v=spf1 -all' }, { type: 'TXT', data: 'v=spf1 +all' });
    expect((await evaluate(two)).result).toBe('permerror');
    const red = fresh('red');
    dns.add(red, { type: 'TXT', data: `v=spf1 redirect=nothing.${red}` });
    expect((await evaluate(red)).result).toBe('permerror');
  });
});
