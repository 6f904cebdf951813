/**
 * A local authoritative DNS server speaking real DNS over UDP on 127.0.0.1 (the `dns2` package), for
 * sending-domain health: point the service at it with DNS_SERVERS=127.0.0.1:<port>. Names not in the
 * zone (nor above a name in it, like the root or a TLD) answer NXDOMAIN; a known name without records of the asked type answers NOERROR, empty.
 * `silent` (or a name in `silentNames`) makes it a resolver that never answers: the question is
 * counted and dropped. `delayMs` delays every answer (a slow resolver).
 */
import dns2 from 'dns2';
import { freePort } from '../../src/config/embedded.js';

const { Packet } = dns2;

/**
 * RCODE 3, "Name Error" (RFC 1035 §4.1.1). dns2 3.0.0 (the newest release that does not require Node 22)
 * has `Packet.RCODE` at run time but not in its type declarations, so the value is named here.
 */
const NXDOMAIN = 3;

export type ZoneRecord =
  | { type: 'A'; address: string }
  | { type: 'TXT'; data: string | string[] }
  | { type: 'MX'; exchange: string; priority: number }
  | { type: 'PTR' | 'CNAME'; domain: string };

/** Records by lower-case name. */
export type Zone = Map<string, ZoneRecord[]>;

export interface DnsServer {
  port: number;
  /** `127.0.0.1:<port>`, for DNS_SERVERS. */
  address: string;
  zone: Zone;
  /** Questions received, as `TYPE name`. */
  queries: string[];
  /** Answer nothing at all while set. */
  silent: boolean;
  /** Names never answered. */
  silentNames: Set<string>;
  /** Every answer is sent this long after its question (0: at once). */
  delayMs: number;
  add(name: string, ...records: ZoneRecord[]): void;
  close(): Promise<void>;
}

const TYPE_NAMES = Object.fromEntries(Object.entries(Packet.TYPE).map(([k, v]) => [v, k])) as Record<
  number,
  string
>;

/** A TXT record's text as character-strings of at most 255 octets each (RFC 1035 §3.3.14). */
const characterStrings = (data: string | string[]): string[] =>
  (Array.isArray(data) ? data : [data]).flatMap((s) => s.match(/[\s\S]{1,255}/g) ?? ['']);

export async function startDnsServer(): Promise<DnsServer> {
  const zone: Zone = new Map();
  const queries: string[] = [];
  const silentNames = new Set<string>();
  const state = { silent: false, delayMs: 0 };
  /** Answers not sent yet (a closed server sends none of them). */
  const delayed = new Set<NodeJS.Timeout>();
  const hasBelow = (name: string): boolean =>
    [...zone.keys()].some((n) => name === '' || n.endsWith(`.${name}`));
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const [question] = request.questions;
      const name = question.name.toLowerCase().replace(/\.$/, '');
      const type = TYPE_NAMES[question.type] ?? String(question.type);
      queries.push(`${type} ${name}`);
      if (state.silent || silentNames.has(name)) return;
      // A name above a name of the zone (the root, a TLD) exists, without records (RFC 8020).
      const records = zone.get(name) ?? (hasBelow(name) ? [] : undefined);
      if (!records) {
        response.header.rcode = NXDOMAIN;
      } else {
        for (const r of records.filter((x) => x.type === type)) {
          response.answers.push({
            name: question.name,
            type: Packet.TYPE[r.type],
            class: Packet.CLASS.IN,
            ttl: 60,
            ...(r.type === 'A' ? { address: r.address } : {}),
            ...(r.type === 'TXT' ? { data: characterStrings(r.data) } : {}),
            ...(r.type === 'MX' ? { exchange: r.exchange, priority: r.priority } : {}),
            ...(r.type === 'PTR' || r.type === 'CNAME' ? { domain: r.domain } : {}),
          } as never);
        }
      }
      if (state.delayMs > 0) {
        const timer = setTimeout(() => {
          delayed.delete(timer);
          void send(response);
        }, state.delayMs);
        delayed.add(timer);
      } else void send(response);
    },
  });
  const port = await freePort();
  await server.listen({ udp: { port, address: '127.0.0.1' } });
  return {
    port,
    address: `127.0.0.1:${port}`,
    zone,
    queries,
    get silent() {
      return state.silent;
    },
    set silent(v: boolean) {
      state.silent = v;
    },
    silentNames,
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(v: number) {
      state.delayMs = v;
    },
    add(name, ...records) {
      const key = name.toLowerCase();
      zone.set(key, [...(zone.get(key) ?? []), ...records]);
    },
    close: () => {
      for (const timer of delayed) clearTimeout(timer);
      delayed.clear();
      return server.close() as Promise<void>;
    },
  };
}
