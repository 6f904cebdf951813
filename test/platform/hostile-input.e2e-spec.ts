/**
 * docs/trust/README.md, hostile input at the HTTP edge, in process: no body is read before the credential
 * is checked (401 first, whatever the body or its Content-Encoding), bodies are read after
 * authentication up to the route's limit with inflated bytes counted (413), and strings must be
 * well-formed Unicode (422 naming the dotted field, 400 for a key), never a 500.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deflateSync, gzipSync } from 'node:zlib';
import { api, createTenant, type TestTenant, useApp, app } from '../helpers/app.js';

/**
 * Sends the headers and `first` bytes of a body announced as `length` bytes (or chunked), never the
 * rest, and resolves with the answer (status and JSON body) or 'no answer' after `waitMs`.
 */
function partialUpload(
  port: number,
  opts: { path: string; headers: Record<string, string>; first: Buffer; end?: boolean; waitMs?: number },
): Promise<{ status: number; body: { error?: { type: string } } } | 'no answer'> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: opts.path,
      headers: opts.headers,
    });
    // Generous: a loaded CI machine once took over 3 s to inflate the 64 MB bomb up to the limit; a server
    // that waits for the rest of a body never answers at all.
    const timer = setTimeout(() => {
      req.destroy();
      resolve('no answer');
    }, opts.waitMs ?? 15_000);
    req.on('response', (res: IncomingMessage) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => {
        clearTimeout(timer);
        req.destroy();
        resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : {} });
      });
    });
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    if (opts.end) req.end(opts.first);
    else req.write(opts.first);
  });
}

/** gzip of `{"contacts":[{},{},…]}` whose inflated size is about `inflatedBytes`. */
export function contactsBomb(inflatedBytes: number): Buffer {
  const n = Math.floor(inflatedBytes / 3);
  return gzipSync(Buffer.from(`{"contacts":[${'{},'.repeat(n)}{}]}`), { level: 9 });
}

describe('hostile input at the HTTP edge', () => {
  useApp();
  let t: TestTenant;
  let port: number;

  beforeAll(async () => {
    await app.listen(0, '127.0.0.1');
    port = (app.getHttpServer().address() as AddressInfo).port;
    t = await createTenant(app);
  });

  it('answers 401 to a request without a valid key before reading any of its body', async () => {
    for (const path of ['/api/v1/contacts/import', '/api/v1/contacts', '/api/v1/provisioning/workspaces']) {
      for (const auth of [undefined, 'Bearer svc_sk_unknown', `Bearer ${t.token}x`]) {
        for (const encoding of [undefined, 'gzip']) {
          const res = await partialUpload(port, {
            path,
            headers: {
              'Content-Type': 'application/json',
              'Content-Length': String(200 * 1024 * 1024),
              ...(auth ? { Authorization: auth } : {}),
              ...(encoding ? { 'Content-Encoding': encoding } : {}),
            },
            first: Buffer.from('{"contacts":['),
          });
          expect({ path, auth, encoding, res }).toEqual({
            path,
            auth,
            encoding,
            res: { status: 401, body: { error: expect.objectContaining({ type: 'authentication_failed' }) } },
          });
        }
      }
    }
    // Chunked, no Content-Length, wrong content type: still 401 first.
    const chunked = await partialUpload(port, {
      path: '/api/v1/contacts',
      headers: { 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked' },
      first: Buffer.from('5\r\nhello\r\n'),
    });
    expect(chunked).toMatchObject({ status: 401 });
  });

  it('answers 401, not 400 or 413, to unauthenticated bodies of any content type or size', async () => {
    const text = await api(app).post('/contacts').set('Content-Type', 'text/plain').send('hello');
    expect(text.status).toBe(401);
    const bomb = await partialUpload(port, {
      path: '/api/v1/contacts/import',
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
      first: contactsBomb(70 * 1024 * 1024),
      end: true,
    });
    expect(bomb).toEqual({
      status: 401,
      body: { error: expect.objectContaining({ type: 'authentication_failed' }) },
    });
  });

  it('reads the body of an authenticated request only up to the limit, counting inflated bytes (413)', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, ' '), { level: 9 });
    expect(bomb.length).toBeLessThan(100 * 1024);
    const auth = { Authorization: `Bearer ${t.token}`, 'Content-Type': 'application/json' };
    for (const [encoding, body] of [
      ['gzip', bomb],
      ['deflate', deflateSync(Buffer.alloc(8 * 1024 * 1024, ' '))],
      ['identity', Buffer.alloc(1024 * 1024 + 1, ' ')],
    ] as const) {
      const res = await partialUpload(port, {
        path: '/api/v1/contacts',
        headers: { ...auth, 'Content-Encoding': encoding },
        first: body,
        end: true,
      });
      expect({ encoding, res }).toEqual({
        encoding,
        res: { status: 413, body: { error: expect.objectContaining({ type: 'payload_too_large' }) } },
      });
    }
    // Declared too large: refused without reading.
    const declared = await partialUpload(port, {
      path: '/api/v1/contacts',
      headers: {
        Authorization: `Bearer ${t.token}`,
        'Content-Type': 'application/json',
        'Content-Length': String(2 * 1024 * 1024),
      },
      first: Buffer.from('{'),
    });
    expect(declared).toMatchObject({ status: 413, body: { error: { type: 'payload_too_large' } } });
    // A well-formed gzip JSON body under the limit is accepted.
    const small = await partialUpload(port, {
      path: '/api/v1/contacts',
      headers: { ...auth, 'Content-Encoding': 'gzip' },
      first: gzipSync(Buffer.from(JSON.stringify({ email: 'gz@example.com', first_name: 'Gz' }))),
      end: true,
    });
    expect(small).toMatchObject({ status: 200, body: { data: { email: 'gz@example.com' } } });
  });

  it('checks the content type and JSON syntax after authentication (400 invalid_request)', async () => {
    const text = await api(app, t.token).post('/contacts').set('Content-Type', 'text/plain').send('hello');
    expect(text.status).toBe(400);
    expect(text.body.error.type).toBe('invalid_request');
    const broken = await api(app, t.token)
      .post('/contacts')
      .set('Content-Type', 'application/json')
      .send('{');
    expect(broken.status).toBe(400);
    expect(broken.body.error.type).toBe('invalid_request');
    const scalar = await api(app, t.token)
      .post('/contacts')
      .set('Content-Type', 'application/json')
      .send('1');
    expect([400, 422]).toContain(scalar.status);
    const empty = await api(app, t.token).post('/contacts').set('Content-Type', 'application/json').send('');
    expect(empty.status).toBe(422);
    expect(empty.body.error.type).toBe('validation_failed');
  });

  describe('strings must be well-formed Unicode', () => {
    const raw = (method: 'post' | 'patch', path: string, json: string) =>
      api(app, t.token)[method](path).set('Content-Type', 'application/json').send(json);

    it('POST /contacts: a lone surrogate or NUL in a value is 422 naming the dotted field', async () => {
      for (const [json, field] of [
        ['{"email":"a\\ud800@example.com"}', 'email'],
        ['{"email":"a@\\udc00.com"}', 'email'],
        ['{"email":"a\\u0000@example.com"}', 'email'],
        ['{"email":"ok@example.com","first_name":"a\\ud800b"}', 'first_name'],
        ['{"email":"ok@example.com","custom_fields":{"x":"\\ud83d"}}', 'custom_fields.x'],
        ['{"email":"ok@example.com","custom_fields":{"x":"a\\u0000"}}', 'custom_fields.x'],
      ] as const) {
        const res = await raw('post', '/contacts', json);
        expect({
          json,
          status: res.status,
          type: res.body.error?.type,
          field: res.body.error?.field,
        }).toEqual({
          json,
          status: 422,
          type: 'validation_failed',
          field,
        });
      }
      const pair = await raw(
        'post',
        '/contacts',
        '{"email":"emoji@example.com","first_name":"\\ud83d\\ude00"}',
      );
      expect(pair.status).toBe(200);
      expect(pair.body.data.first_name).toBe('\u{1F600}');
    });

    it('a lone surrogate or NUL in an object key is 400 invalid_request', async () => {
      for (const json of [
        '{"email":"ok@example.com","custom_fields":{"k\\udc00":"v"}}',
        '{"email":"ok@example.com","custom_fields":{"k\\u0000":"v"}}',
        '{"e\\ud800":"x"}',
      ]) {
        const res = await raw('post', '/contacts', json);
        expect({ json, status: res.status, type: res.body.error?.type }).toEqual({
          json,
          status: 400,
          type: 'invalid_request',
        });
      }
    });

    it('PATCH /contacts/{id} and POST /suppressions refuse a lone surrogate with 422, never 500', async () => {
      const created = await api(app, t.token)
        .post('/contacts')
        .send({ email: 'patch-me@example.com', first_name: 'P' });
      expect(created.body).toMatchObject({ data: { email: 'patch-me@example.com' } });
      const patched = await raw(
        'patch',
        `/contacts/${created.body.data.id}`,
        '{"email":"p\\ud800@example.com"}',
      );
      expect({ status: patched.status, field: patched.body.error?.field }).toEqual({
        status: 422,
        field: 'email',
      });
      const sup = await raw('post', '/suppressions', '{"email":"s\\udfff@example.com"}');
      expect({ status: sup.status, field: sup.body.error?.field }).toEqual({ status: 422, field: 'email' });
      const supNul = await raw('post', '/suppressions', '{"email":"s@example.com","reason":"x\\u0000"}');
      expect({ status: supNul.status, field: supNul.body.error?.field }).toEqual({
        status: 422,
        field: 'reason',
      });
    });

    it('names array items by their 0-based index', async () => {
      const steps =
        '[{"position":1,"subject":"s","body":"ok"},{"position":2,"subject":"s","body":"a\\ud800"}]';
      const res = await raw('post', '/sequences', `{"name":"x","steps":${steps}}`);
      expect({ status: res.status, field: res.body.error?.field }).toEqual({
        status: 422,
        field: 'steps.1.body',
      });
    });
  });
});
