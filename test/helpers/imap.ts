/**
 * IMAP fault helpers for the inbound-mail tests: a byte-counting TCP proxy in front of a real IMAP
 * server (to see how much of a mailbox the poller actually downloads), and a "hung" server that
 * accepts connections and never sends the IMAP greeting.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { freePort } from '../../src/config/embedded.js';

export interface ImapProxy {
  port: number;
  /** Bytes sent from the IMAP server to clients since start (or the last `reset()`). */
  downstreamBytes: () => number;
  reset: () => void;
  close: () => Promise<void>;
}

/** A plain TCP proxy to 127.0.0.1:`targetPort` that counts the bytes the server sends. */
export async function startImapProxy(targetPort: number): Promise<ImapProxy> {
  let down = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port: targetPort });
    sockets.add(client).add(upstream);
    upstream.on('data', (chunk: Buffer) => {
      down += chunk.length;
    });
    client.pipe(upstream);
    upstream.pipe(client);
    const end = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  return listen(server, {
    downstreamBytes: () => down,
    reset: () => {
      down = 0;
    },
    sockets,
  });
}

export interface HungServer {
  port: number;
  /** Connections accepted so far. */
  accepted: () => number;
  /** Connections the client side closed (the poller gave up on them). */
  closedByClient: () => number;
  /** Connections still open. */
  open: () => number;
  /** The most connections that were open at the same time. */
  maxOpen: () => number;
  close: () => Promise<void>;
}

/** Accepts TCP connections and never writes a byte: an IMAP server that hangs before its greeting. */
export async function startHungServer(): Promise<HungServer> {
  let accepted = 0;
  let closed = 0;
  let maxOpen = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    maxOpen = Math.max(maxOpen, sockets.size);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      if (sockets.delete(socket)) closed += 1;
    });
  });
  const base = await listen(server, { sockets });
  return {
    port: base.port,
    accepted: () => accepted,
    closedByClient: () => closed,
    open: () => sockets.size,
    maxOpen: () => maxOpen,
    close: base.close,
  };
}

async function listen<T extends { sockets: Set<Socket> }>(
  server: Server,
  extra: T,
): Promise<Omit<T, 'sockets'> & { port: number; close: () => Promise<void> }> {
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  const { sockets, ...rest } = extra;
  return {
    ...rest,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of [...sockets]) {
          sockets.delete(s);
          s.destroy();
        }
        server.close(() => resolve());
      }),
  };
}
