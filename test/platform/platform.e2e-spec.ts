/**
 * The HTTP platform of docs/api.md: error envelope and types on every failure path, X-Request-Id,
 * Content-Type, helmet headers and health checks.
 */
import { Controller, Get, Module, Post } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { configureHttpApp } from '../../src/app.factory.js';
import { Public } from '../../src/common/auth/auth.decorator.js';
import { EnvelopeExceptionFilter } from '../../src/common/http/exception.filter.js';
import { api, createTenant, type TestTenant, useApp, app } from '../helpers/app.js';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('HTTP platform', () => {
  useApp();
  let t: TestTenant;

  beforeAll(async () => {
    t = await createTenant(app, { maxWorkspaces: 100 });
  });

  const expectError = (
    res: request.Response,
    status: number,
    type: string,
    field?: string,
  ): { type: string; message: string; field?: string } => {
    expect({ status: res.status, type: res.body?.error?.type }).toEqual({ status, type });
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['x-request-id']).toBeTruthy();
    if (field !== undefined) expect(res.body.error.field).toBe(field);
    expect(Object.keys(res.body)).toEqual(['error']);
    expect(typeof res.body.error.message).toBe('string');
    expect(res.body.error.message).not.toMatch(/\n\s+at |node_modules|SELECT |INSERT /);
    return res.body.error;
  };

  it('answers an unknown route with 404 not_found JSON, with and without a key', async () => {
    expectError(await api(app).get('/no-such-route'), 404, 'not_found');
    expectError(await api(app, t.token).get('/no-such-route/123'), 404, 'not_found');
    expectError(await api(app, t.token).post('/no-such-route').send({ a: 1 }), 404, 'not_found');
  });

  it('writes JSON bodies as UTF-8 text with an exact Content-Length, for GET, HEAD and POST', async () => {
    const get = await api(app, t.token).get('/me');
    expect(get.status).toBe(200);
    expect(get.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Number(get.headers['content-length'])).toBe(Buffer.byteLength(get.text));
    expect(JSON.parse(get.text)).toEqual(get.body);
    const head = await request(app.getHttpServer())
      .head('/api/v1/me')
      .set('Authorization', `Bearer ${t.token}`);
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(head.text ?? '').toBe('');
    // Non-ASCII text: the length counts bytes, not characters.
    const name = 'Zoë 日本 🚀';
    const created = await api(app, t.token)
      .post('/contacts')
      .send({ email: 'utf8@example.com', first_name: name });
    expect(created.status).toBe(200);
    expect(created.body.data.first_name).toBe(name);
    expect(Number(created.headers['content-length'])).toBe(Buffer.byteLength(created.text));
    expect(Buffer.byteLength(created.text)).toBeGreaterThan(created.text.length);
  });

  it('answers a known path with another method with 405 and Allow', async () => {
    const res = await api(app, t.token).delete('/me');
    expectError(res, 405, 'method_not_allowed');
    expect(res.headers.allow.split(/,\s*/).sort()).toEqual(['GET', 'HEAD']);
    const put = await api(app, t.provisioningToken).put('/provisioning/workspaces').send({ name: 'x' });
    expectError(put, 405, 'method_not_allowed');
    expect(put.headers.allow.split(/,\s*/).sort()).toEqual(['GET', 'HEAD', 'POST']);
    const withParam = await api(app, t.provisioningToken).delete(
      '/provisioning/workspaces/00000000-0000-4000-8000-000000000000',
    );
    expectError(withParam, 405, 'method_not_allowed');
    expect(withParam.headers.allow.split(/,\s*/).sort()).toEqual(['GET', 'HEAD']);
  });

  it('answers a malformed JSON body with 400 invalid_request', async () => {
    const res = await api(app, t.provisioningToken)
      .post('/provisioning/workspaces')
      .set('Content-Type', 'application/json')
      .send('{"name": "unterminated');
    expectError(res, 400, 'invalid_request');
    expect(res.body.error.message).not.toContain('unterminated');
  });

  it('answers a body of the wrong content type with 400 invalid_request', async () => {
    const text = await api(app, t.provisioningToken)
      .post('/provisioning/workspaces')
      .set('Content-Type', 'text/plain')
      .send('name=Hello');
    expectError(text, 400, 'invalid_request');
    const form = await api(app, t.provisioningToken)
      .post('/provisioning/workspaces')
      .type('form')
      .send({ name: 'Hello' });
    expectError(form, 400, 'invalid_request');
  });

  it('answers a body over 1 MB with 413 payload_too_large', async () => {
    const res = await api(app, t.provisioningToken)
      .post('/provisioning/workspaces')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ name: 'x', padding: 'a'.repeat(1024 * 1024 + 10) }));
    expectError(res, 413, 'payload_too_large');
  });

  it('answers a validation failure with 422 validation_failed and a dotted field', async () => {
    const nested = await api(app, t.provisioningToken)
      .post('/provisioning/workspaces')
      .send({ name: 'Acme', config: { domain_daily_send_limit: 0 } });
    expectError(nested, 422, 'validation_failed', 'config.domain_daily_send_limit');
    const top = await api(app, t.provisioningToken).post('/provisioning/workspaces').send({ name: '' });
    expectError(top, 422, 'validation_failed', 'name');
    const missing = await api(app, t.provisioningToken).post('/provisioning/workspaces').send({});
    expectError(missing, 422, 'validation_failed', 'name');
  });

  it('answers an unknown body field with 422 naming it', async () => {
    const res = await api(app, t.provisioningToken)
      .post('/provisioning/workspaces')
      .send({ name: 'Acme', colour: 'blue' });
    expectError(res, 422, 'validation_failed', 'colour');
    const nested = await api(app, t.provisioningToken)
      .post('/provisioning/workspaces')
      .send({ name: 'Acme', config: { colour: 'blue' } });
    expectError(nested, 422, 'validation_failed', 'config.colour');
  });

  it('answers a JSON body that is not an object with 422', async () => {
    const arr = await api(app, t.provisioningToken)
      .post('/provisioning/workspaces')
      .send([{ name: 'x' }]);
    expectError(arr, 422, 'validation_failed');
    const str = await api(app, t.provisioningToken)
      .post('/provisioning/workspaces')
      .set('Content-Type', 'application/json')
      .send('"just a string"');
    expect([400, 422]).toContain(str.status);
    expect(str.headers['content-type']).toMatch(/^application\/json/);
  });

  it('refuses text PostgreSQL cannot store (NUL, unpaired surrogates) in provisioning fields with 422', async () => {
    const post = (raw: string): request.Test =>
      api(app, t.provisioningToken)
        .post('/provisioning/workspaces')
        .set('Content-Type', 'application/json')
        .send(raw);
    expectError(await post('{"name":"a\\u0000b"}'), 422, 'validation_failed', 'name');
    expectError(await post('{"name":"a\\ud800b"}'), 422, 'validation_failed', 'name');
    expectError(
      await post('{"name":"ok","config":{"ai_model":"x\\udc00"}}'),
      422,
      'validation_failed',
      'config.ai_model',
    );
    // In an object key: 400 invalid_request (a key cannot be named as a field).
    expectError(await post('{"name":"ok","config":{"a\\u0000":1}}'), 400, 'invalid_request');
    expect((await post('{"name":"emoji \\ud83d\\ude00 ok"}')).status).toBe(201);
    const query = await api(app, t.provisioningToken).get('/provisioning/workspaces?cursor=%00');
    expectError(query, 422, 'validation_failed', 'cursor');
  });

  it('answers malformed transport details with 400 or 404, never 500 and never an echo', async () => {
    const badPath = await api(app, t.provisioningToken).get('/provisioning/workspaces/%E0%A4%A');
    expectError(badPath, 404, 'not_found');
    expect(badPath.body.error.message).not.toContain('%');
    for (const encoding of ['gzip', 'deflate', 'br', 'zstd', 'nonsense']) {
      const res = await api(app, t.provisioningToken)
        .post('/provisioning/workspaces')
        .set('Content-Type', 'application/json')
        .set('Content-Encoding', encoding)
        .send('{"name":"not compressed"}');
      expectError(res, 400, 'invalid_request');
    }
    const latin1 = await api(app, t.provisioningToken)
      .post('/provisioning/workspaces')
      .set('Content-Type', 'application/json; charset=latin1')
      .send('{"name":"x"}');
    expectError(latin1, 400, 'invalid_request');
    const deep = await api(app, t.provisioningToken)
      .post('/provisioning/workspaces')
      .set('Content-Type', 'application/json')
      .send(`{"name":"x","config":${'['.repeat(5000)}${']'.repeat(5000)}}`);
    expectError(deep, 400, 'invalid_request');
    const deeper = await api(app, t.provisioningToken)
      .post('/provisioning/workspaces')
      .set('Content-Type', 'application/json')
      .set('Idempotency-Key', 'deep')
      .send(`{"name":"x","config":${'{"a":'.repeat(100000)}1${'}'.repeat(100000)}}`);
    expect([400, 413]).toContain(deeper.status);
    expect(deeper.headers['content-type']).toMatch(/^application\/json/);
  });

  it('echoes a sane X-Request-Id and generates one otherwise', async () => {
    const sane = await api(app, t.token).get('/me').set('X-Request-Id', 'abc-123.DEF:9_z');
    expect(sane.headers['x-request-id']).toBe('abc-123.DEF:9_z');
    const generated = await api(app, t.token).get('/me');
    expect(generated.headers['x-request-id']).toMatch(UUID_RE);
    for (const bad of ['has space', 'x'.repeat(129), 'semi;colon', '<script>']) {
      const res = await api(app, t.token).get('/me').set('X-Request-Id', bad);
      expect(res.headers['x-request-id']).toMatch(UUID_RE);
    }
    const onError = await api(app).get('/no-such-route').set('X-Request-Id', 'trace-42');
    expect(onError.headers['x-request-id']).toBe('trace-42');
    const onHealth = await request(app.getHttpServer()).get('/health/live');
    expect(onHealth.headers['x-request-id']).toMatch(UUID_RE);
  });

  it('sends Content-Type application/json on every /api/v1 answer', async () => {
    const answers = [
      await api(app, t.token).get('/me'),
      await api(app).get('/me'),
      await api(app, t.token).get('/provisioning/workspaces'),
      await api(app, t.provisioningToken).get('/provisioning/workspaces'),
      await api(app, t.provisioningToken).get('/provisioning/workspaces/not-a-uuid'),
      await api(app, t.provisioningToken).post('/provisioning/workspaces').send({ name: 'Json ws' }),
      await api(app).get('/whatever'),
      await api(app).patch('/me'),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 401, 403, 200, 404, 201, 404, 405]);
    for (const res of answers) expect(res.headers['content-type']).toMatch(/^application\/json/);
  });

  it('sets helmet security headers and hides the framework', async () => {
    const res = await api(app, t.token).get('/me');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(res.headers['strict-transport-security']).toMatch(/max-age=\d+/);
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['x-powered-by']).toBeUndefined();
    const err = await api(app).get('/nothing-here');
    expect(err.headers['x-content-type-options']).toBe('nosniff');
  });

  it('serves /health/live and /health/ready outside /api/v1, without a key', async () => {
    const live = await request(app.getHttpServer()).get('/health/live');
    expect(live.status).toBe(200);
    expect(live.body).toEqual({ status: 'ok' });
    const ready = await request(app.getHttpServer()).get('/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe('ok');
    expect(ready.body.info).toMatchObject({ database: { status: 'up' }, redis: { status: 'up' } });
    expect((await request(app.getHttpServer()).get('/api/v1/health/live')).status).toBe(404);
  });

  it('serves the OpenAPI document without a key', async () => {
    const res = await request(app.getHttpServer()).get('/api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
  });
});

@Controller('boom')
class ExplodingController {
  @Get()
  @Public()
  explode(): never {
    throw new Error('relation "secret_table" does not exist: SELECT password FROM users');
  }

  @Post()
  @Public()
  explodeNonError(): never {
    throw { detail: 'a plain object with internals', query: 'DELETE FROM api_keys' };
  }
}

@Module({
  controllers: [ExplodingController],
  providers: [{ provide: APP_FILTER, useClass: EnvelopeExceptionFilter }],
})
class ExplodingModule {}

describe('HTTP platform: unexpected exceptions', () => {
  let app: NestExpressApplication;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ imports: [ExplodingModule] }).compile();
    app = moduleRef.createNestApplication<NestExpressApplication>({ bodyParser: false, logger: false });
    configureHttpApp(app);
    await app.init();
  });
  afterAll(() => app.close());

  it('answers 500 internal_error whose message holds only the request id', async () => {
    const res = await request(app.getHttpServer()).get('/api/v1/boom').set('X-Request-Id', 'req-500-test');
    expect(res.status).toBe(500);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      error: { type: 'internal_error', message: 'Internal error; request id req-500-test' },
    });
    const generated = await request(app.getHttpServer()).post('/api/v1/boom').send({});
    expect(generated.status).toBe(500);
    const id = generated.headers['x-request-id'];
    expect(id).toMatch(UUID_RE);
    expect(generated.body).toEqual({
      error: { type: 'internal_error', message: `Internal error; request id ${id}` },
    });
    expect(JSON.stringify(generated.body)).not.toMatch(/DELETE|internals/);
  });
});
