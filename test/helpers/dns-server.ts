/**
 * A local DNS server speaking real DNS on 127.0.0.1 (the `dns2` package), over UDP and TCP on the same
 * port: point the service at it with DNS_SERVERS=127.0.0.1:<port>. Names not in the zone (nor above a
 * name in it, like the root or a TLD) answer NXDOMAIN; a known name without records of the asked type
 * answers NOERROR, empty. `silent` (or a name in `silentNames`) makes it a resolver that never answers:
 * the question is counted and dropped. `delayMs` delays every answer (a slow resolver).
 *
 * Hostile answers are served as a real server would: an answer larger than the UDP payload the asker
 * offered (512 octets, or its EDNS size) goes out truncated (the TC bit, question only), and the
 * resolver asks again over TCP, where the whole answer (up to 64 KB) is sent. A name with a CNAME is
 * followed inside the zone as a recursive resolver would, every CNAME of the chain in the answer; a
 * loop (a → b → a) is answered with the chain up to the repeat (NOERROR, no record of the asked type)
 * or, with `cnameLoop = 'servfail'`, SERVFAIL (what public recursive resolvers answer). Answers are
 * encoded here (names compressed as RFC 1035 §4.1.4 allows): dns2's own encoder takes seconds for a
 * thousand records.
 */
import { Socket, type Server as TcpServer } from 'node:net';
import dns2 from 'dns2';
import { freePort } from '../../src/config/embedded.js';

const { Packet } = dns2;

/**
 * RCODEs (RFC 1035 §4.1.1). dns2 3.0.0 (the newest release that does not require Node 22) has
 * `Packet.RCODE` at run time but not in its type declarations, so the values are named here.
 */
const SERVFAIL = 2;
const NXDOMAIN = 3;
/** RFC 1035 §4.2.1: a UDP answer without EDNS is at most 512 octets. */
const UDP_LIMIT = 512;
/** A TCP message's length is 16 bits (RFC 1035 §4.2.2). */
const TCP_LIMIT = 65_535;
/** CNAME links followed inside the zone at most (BIND follows 16). */
const MAX_CHAIN = 16;

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
  /** Questions received over either transport, as `TYPE name`. */
  queries: string[];
  /** The questions of `queries` that came over TCP. */
  tcpQueries: string[];
  /** Answer nothing at all while set. */
  silent: boolean;
  /** Names never answered. */
  silentNames: Set<string>;
  /** Every answer is sent this long after its question (0: at once). */
  delayMs: number;
  /** How a CNAME loop is answered: the chain (NOERROR) or SERVFAIL. */
  cnameLoop: 'chain' | 'servfail';
  add(name: string, ...records: ZoneRecord[]): void;
  close(): Promise<void>;
}

const TYPES: Record<ZoneRecord['type'], number> = {
  A: Packet.TYPE.A,
  TXT: Packet.TYPE.TXT,
  MX: Packet.TYPE.MX,
  PTR: Packet.TYPE.PTR,
  CNAME: Packet.TYPE.CNAME,
};
const TYPE_NAMES = Object.fromEntries(Object.entries(Packet.TYPE).map(([k, v]) => [v, k])) as Record<
  number,
  string
>;

/** A TXT record's text as character-strings of at most 255 octets each (RFC 1035 §3.3.14). */
const characterStrings = (data: string | string[]): Buffer[] =>
  (Array.isArray(data) ? data : [data]).flatMap((s) => {
    const bytes = Buffer.from(s, 'utf8');
    const parts: Buffer[] = [];
    for (let i = 0; i < bytes.length; i += 255) parts.push(bytes.subarray(i, i + 255));
    return parts.length > 0 ? parts : [Buffer.alloc(0)];
  });

class MessageFull extends Error {}

/** A DNS message written straight into a buffer, with name compression. */
class MessageWriter {
  private readonly buf: Buffer;
  private readonly names = new Map<string, number>();
  length = 0;

  /** Writing past `limit` octets throws MessageFull (a UDP answer stops at its size). */
  constructor(private readonly limit: number) {
    this.buf = Buffer.alloc(limit);
  }

  private room(n: number): void {
    if (this.length + n > this.limit) throw new MessageFull();
  }
  u8(v: number): void {
    this.room(1);
    this.buf.writeUInt8(v, this.length);
    this.length += 1;
  }
  u16(v: number): void {
    this.room(2);
    this.buf.writeUInt16BE(v, this.length);
    this.length += 2;
  }
  u32(v: number): void {
    this.room(4);
    this.buf.writeUInt32BE(v, this.length);
    this.length += 4;
  }
  bytes(b: Buffer): void {
    this.room(b.length);
    b.copy(this.buf, this.length);
    this.length += b.length;
  }
  /** A name (ASCII: IDNs are asked as A-labels), each suffix written once and pointed to after. */
  name(name: string): void {
    const lower = name.toLowerCase().replace(/\.$/, '');
    let start = 0;
    while (start < lower.length) {
      const at = this.names.get(start === 0 ? lower : lower.slice(start));
      if (at !== undefined) return this.u16(0xc000 | at);
      if (this.length < 0x4000) this.names.set(start === 0 ? lower : lower.slice(start), this.length);
      const dot = lower.indexOf('.', start);
      const end = dot === -1 ? lower.length : dot;
      this.u8(end - start);
      this.room(end - start);
      this.length += this.buf.write(name.slice(start, end), this.length, 'latin1');
      start = end + 1;
    }
    this.u8(0);
  }
  /** Type, class, TTL, then the RDATA `write` produces, its length filled in after. */
  record(owner: string, r: ZoneRecord): void {
    this.name(owner);
    this.u16(TYPES[r.type]);
    this.u16(Packet.CLASS.IN);
    this.u32(60);
    const lengthAt = this.length;
    this.u16(0);
    if (r.type === 'A') this.bytes(Buffer.from(r.address.split('.').map(Number)));
    else if (r.type === 'TXT')
      for (const s of characterStrings(r.data)) {
        this.u8(s.length);
        this.bytes(s);
      }
    else if (r.type === 'MX') {
      this.u16(r.priority);
      this.name(r.exchange);
    } else this.name(r.domain);
    this.buf.writeUInt16BE(this.length - lengthAt - 2, lengthAt);
  }
  toBuffer(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.length));
  }
}

interface Answer {
  rcode: number;
  records: Array<{ owner: string; record: ZoneRecord }>;
}

/**
 * Encodes an answer to `request` in at most `limit` octets: whole when it fits, else the header and
 * question with the TC bit (RFC 2181 §9: the asker retries over TCP).
 */
function encode(request: InstanceType<typeof Packet>, answer: Answer, limit: number): Buffer {
  const write = (records: Answer['records'], truncated: boolean): MessageWriter => {
    const w = new MessageWriter(limit);
    const h = request.header;
    w.u16(h.id);
    // QR, opcode, AA, TC, RD; then RA and the RCODE.
    w.u8(0x80 | ((h.opcode & 0xf) << 3) | 0x04 | (truncated ? 0x02 : 0) | (h.rd ? 1 : 0));
    w.u8(0x80 | (answer.rcode & 0xf));
    w.u16(request.questions.length);
    w.u16(records.length);
    w.u16(0);
    w.u16(0);
    for (const q of request.questions) {
      w.name(q.name);
      w.u16(q.type);
      w.u16(q.class);
    }
    for (const { owner, record } of records) w.record(owner, record);
    return w;
  };
  try {
    return write(answer.records, false).toBuffer();
  } catch (err) {
    if (!(err instanceof MessageFull)) throw err;
  }
  return write([], true).toBuffer();
}

export async function startDnsServer(): Promise<DnsServer> {
  const zone: Zone = new Map();
  const queries: string[] = [];
  const tcpQueries: string[] = [];
  const silentNames = new Set<string>();
  const state = { silent: false, delayMs: 0, cnameLoop: 'chain' as 'chain' | 'servfail' };
  /** Answers not sent yet (a closed server sends none of them). */
  const delayed = new Set<NodeJS.Timeout>();
  /** Open TCP connections, ended on close (dns2 keeps an idle one 10 s). */
  const connections = new Set<Socket>();
  const hasBelow = (name: string): boolean =>
    [...zone.keys()].some((n) => name === '' || n.endsWith(`.${name}`));

  /** The answer to `type name`: its records, CNAMEs followed inside the zone. */
  const answerFor = (asked: string, type: string): Answer => {
    const records: Answer['records'] = [];
    const seen = new Set<string>();
    let owner = asked;
    let name = asked.toLowerCase().replace(/\.$/, '');
    for (let link = 0; ; link++) {
      const own = zone.get(name) ?? (hasBelow(name) ? [] : undefined);
      if (!own) return { rcode: link === 0 ? NXDOMAIN : 0, records };
      const cname = own.find((r): r is Extract<ZoneRecord, { domain: string }> => r.type === 'CNAME');
      if (!cname || type === 'CNAME') {
        for (const record of own.filter((r) => r.type === type)) records.push({ owner, record });
        return { rcode: 0, records };
      }
      seen.add(name);
      records.push({ owner, record: cname });
      owner = cname.domain;
      name = cname.domain.toLowerCase().replace(/\.$/, '');
      if (seen.has(name) || link + 1 >= MAX_CHAIN)
        return state.cnameLoop === 'servfail' ? { rcode: SERVFAIL, records: [] } : { rcode: 0, records };
    }
  };

  const server = dns2.createServer({
    udp: true,
    tcp: true,
    handle: (request, send, client) => {
      const overTcp = client instanceof Socket;
      const [question] = request.questions;
      const name = question.name.toLowerCase().replace(/\.$/, '');
      const type = TYPE_NAMES[question.type] ?? String(question.type);
      queries.push(`${type} ${name}`);
      if (overTcp) tcpQueries.push(`${type} ${name}`);
      if (state.silent || silentNames.has(name)) return;
      // The asker's UDP payload size (its EDNS OPT record's class), never under 512 (RFC 6891 §6.2.3).
      const edns = request.additionals.find((r) => r.type === Packet.TYPE.EDNS);
      const limit = overTcp ? TCP_LIMIT : Math.max(UDP_LIMIT, edns?.class ?? 0);
      const response = encode(request, answerFor(question.name, type), limit);
      // A Buffer is sent as it is (dns2's send takes a Packet or the encoded message).
      const reply = (): void => void send(response as never);
      if (state.delayMs > 0) {
        const timer = setTimeout(() => {
          delayed.delete(timer);
          reply();
        }, state.delayMs);
        delayed.add(timer);
      } else reply();
    },
  });
  const tcp = (server as unknown as { servers: { tcp: TcpServer } }).servers.tcp;
  tcp.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.setNoDelay(true);
    socket.once('close', () => connections.delete(socket));
  });
  const port = await freePort();
  await server.listen({ udp: { port, address: '127.0.0.1' }, tcp: { port, address: '127.0.0.1' } });
  return {
    port,
    address: `127.0.0.1:${port}`,
    zone,
    queries,
    tcpQueries,
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
    get cnameLoop() {
      return state.cnameLoop;
    },
    set cnameLoop(v: 'chain' | 'servfail') {
      state.cnameLoop = v;
    },
    add(name, ...records) {
      const key = name.toLowerCase();
      zone.set(key, [...(zone.get(key) ?? []), ...records]);
    },
    close: () => {
      for (const timer of delayed) clearTimeout(timer);
      delayed.clear();
      for (const socket of connections) socket.destroy();
      return server.close() as Promise<void>;
    },
  };
}
