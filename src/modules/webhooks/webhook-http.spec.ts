/**
 * The HTTP client connects only to the address that was checked: a hostname that does not exist in
 * DNS still reaches the pinned address, with the hostname kept in the Host header.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CheckedTarget } from './target-guard.js';
import { WebhookHttpClient } from './webhook-http.js';

describe('webhook HTTP client', () => {
  let server: Server;
  let port: number;
  const seen: IncomingHttpHeaders[] = [];
  const client = new WebhookHttpClient(300);

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req.headers);
      req.resume();
      req.on('end', () => {
        if (req.url === '/redirect') res.writeHead(301, { location: '/elsewhere' }).end();
        else if (req.url === '/hang') setTimeout(() => res.writeHead(200).end(), 1000);
        else res.writeHead(200).end('fine');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await client.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const target = (path: string): CheckedTarget => ({
    url: new URL(`http://hooks.invalid:${port}${path}`),
    hostname: 'hooks.invalid',
    address: '127.0.0.1',
    family: 4,
    exempt: false,
  });

  it('connects to the pinned address, never resolving the name again', async () => {
    const out = await client.post(target('/ok'), { 'content-type': 'application/json' }, '{}');
    expect(out).toMatchObject({ ok: true, statusCode: 200, excerpt: 'fine', errorClass: null });
    expect(seen.at(-1)?.host).toBe(`hooks.invalid:${port}`);
  });

  it('does not follow redirects and enforces the deadline', async () => {
    const redirect = await client.post(target('/redirect'), {}, '{}');
    expect(redirect).toMatchObject({ ok: false, statusCode: 301, error: 'blocked redirect' });
    const hang = await client.post(target('/hang'), {}, '{}');
    expect(hang).toMatchObject({ ok: false, errorClass: 'timeout' });
  });
});
