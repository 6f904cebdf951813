import { readFileSync, writeFileSync } from 'node:fs';
import request from 'supertest';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildOpenApiDocument } from '../../src/openapi.js';
import { api, createTenant, useApp, app } from '../helpers/app.js';
import { ensureBuilt, startService, stopAllServices } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';

const SPEC_OPERATION_IDS = [
  'v1.analytics.daily',
  'v1.campaigns.index',
  'v1.campaigns.store',
  'v1.campaigns.show',
  'v1.campaigns.update',
  'v1.contacts.index',
  'v1.contacts.store',
  'v1.contacts.show',
  'v1.contacts.update',
  'v1.enrollments.index',
  'v1.enrollments.show',
  'v1.campaigns.enrollments.store',
  'v1.enrollments.pause',
  'v1.enrollments.resume',
  'v1.enrollments.stop',
  'v1.contacts.import',
  'v1.imports.show',
  'v1.inboxes.index',
  'v1.inboxes.show',
  'v1.me',
];

describe('OpenAPI document', () => {
  useApp();
  beforeAll(async () => {
    ensureBuilt();
  });
  afterAll(async () => {
    await stopAllServices();
  });

  it('is served at /api/v1/openapi.json as OpenAPI 3.1, version v1, with Swagger UI at /docs', async () => {
    const res = await request(app.getHttpServer()).get('/api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.info.version).toBe('v1');
    const ui = await request(app.getHttpServer()).get('/docs/');
    expect(ui.status).toBe(200);
    expect(ui.text).toContain('swagger');
  });

  it('matches the committed openapi.json (run `npm run openapi:write` after changing routes)', () => {
    const generated = `${JSON.stringify(buildOpenApiDocument(app), null, 2)}\n`;
    if (process.env.UPDATE_OPENAPI === '1') writeFileSync('openapi.json', generated);
    expect(generated).toEqual(readFileSync('openapi.json', 'utf8'));
  });

  it('gives every operation an id, and declares every operation id of the spec that exists yet', () => {
    const doc = buildOpenApiDocument(app);
    const ids: string[] = [];
    for (const item of Object.values(doc.paths)) {
      for (const op of Object.values(item as Record<string, { operationId?: string }>)) {
        expect(op.operationId).toMatch(/^v1\./);
        ids.push(op.operationId!);
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toContain('v1.me');
    expect(SPEC_OPERATION_IDS.filter((id) => !ids.includes(id))).toEqual([]);
  });

  it('the committed openapi.json and the served copy pass @apidevtools/swagger-parser validation', async () => {
    // swagger-parser loads ESM-only code through require(): it runs in Node itself, as `npm test` runs it.
    const served = join(tmpdir(), `served-openapi-${process.pid}.json`);
    writeFileSync(served, (await request(app.getHttpServer()).get('/api/v1/openapi.json')).text);
    const run = spawnSync(process.execPath, ['scripts/validate-openapi.mjs', 'openapi.json', served], {
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    expect(run.stdout).toBe(`openapi.json: valid\n${served}: valid\n`);
  });

  it('serves its own address as the server (PUBLIC_URL here); the committed file names the default port', async () => {
    const served = (await request(app.getHttpServer()).get('/api/v1/openapi.json')).body as {
      servers: Array<{ url: string }>;
    };
    expect(served.servers.map((s) => s.url)).toEqual(['http://service.test']);
    const committed = JSON.parse(readFileSync('openapi.json', 'utf8')) as {
      servers: Array<{ url: string; variables: Record<string, { default: string }> }>;
    };
    expect(committed.servers.map((s) => [s.url, s.variables.host.default])).toEqual([
      ['{scheme}://{host}', 'localhost:3000'],
    ]);
  });

  it('without PUBLIC_URL, on another port, Swagger UI "Try it out" calls that port', async () => {
    const svc = await startService({ role: 'api', env: { PUBLIC_URL: '' } });
    const doc = (await (await fetch(`${svc.url}/api/v1/openapi.json`)).json()) as {
      servers: Array<{ url: string }>;
    };
    // Fetched from 127.0.0.1, the document names 127.0.0.1 (the page's own origin: no CORS needed).
    expect(svc.url).toBe(`http://127.0.0.1:${svc.port}`);
    expect(doc.servers.map((s) => s.url)).toEqual([`http://127.0.0.1:${svc.port}`]);
    // Swagger UI is initialised with the served document: its requests go to the first server.
    const init = await (await fetch(`${svc.url}/docs/swagger-ui-init.js`)).text();
    expect(init).toContain(`"url": "http://127.0.0.1:${svc.port}"`);
    expect(init).not.toContain('localhost:3000');
    const viaLocalhost = await (await fetch(`http://localhost:${svc.port}/docs/swagger-ui-init.js`)).text();
    expect(viaLocalhost).toContain(`"url": "http://localhost:${svc.port}"`);
    // A Host that is not the service's own gets PUBLIC_URL (here the default), not the Host.
    const foreign = await request(svc.url).get('/api/v1/openapi.json').set('Host', 'evil.example');
    expect((foreign.body as { servers: Array<{ url: string }> }).servers[0].url).toBe(
      `http://localhost:${svc.port}`,
    );
    // A page on one own origin may call the other: the preflight answers 204 with CORS headers.
    const preflight = await fetch(`${svc.url}/api/v1/me`, {
      method: 'OPTIONS',
      headers: {
        Origin: `http://localhost:${svc.port}`,
        'Access-Control-Request-Method': 'GET',
        'Access-Control-Request-Headers': 'authorization',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(`http://localhost:${svc.port}`);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
    // Another site's page gets no CORS answer: its preflight is the usual 405, without the headers.
    const other = await fetch(`${svc.url}/api/v1/me`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'GET' },
    });
    expect(other.status).toBe(405);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  }, 120_000);

  it('is licensed Apache-2.0: LICENSE, package.json and the document say so', () => {
    expect(readFileSync('LICENSE', 'utf8')).toMatch(/Apache License\s+Version 2\.0, January 2004/);
    expect((JSON.parse(readFileSync('package.json', 'utf8')) as { license: string }).license).toBe(
      'Apache-2.0',
    );
    const doc = JSON.parse(readFileSync('openapi.json', 'utf8')) as {
      info: { license: { name: string; url: string } };
    };
    expect(doc.info.license).toEqual({
      name: 'Apache-2.0',
      url: 'https://www.apache.org/licenses/LICENSE-2.0',
    });
  });

  it('documents import rows the way the service takes them: a row without email is accepted and reported', async () => {
    const doc = JSON.parse(readFileSync('openapi.json', 'utf8')) as {
      components: { schemas: Record<string, { required?: string[] }> };
    };
    expect(doc.components.schemas.ImportContactDto.required ?? []).not.toContain('email');
    const t = await createTenant(app);
    const res = await api(app, t.token)
      .post('/contacts/import')
      .set('Idempotency-Key', `no-email-${Date.now()}`)
      .send({ contacts: [{ first_name: 'No email' }, { email: 'row-two@example.com' }] });
    expect({ status: res.status, body: res.body as unknown }).toMatchObject({ status: 202 });
    const id = (res.body as { data: { id: number } }).data.id;
    const done = await waitFor(async () => {
      const got = (await api(app, t.token).get(`/imports/${id}`)).body as {
        data: {
          status: string;
          created_count: number;
          error_count: number;
          errors: Array<{ row: number; field: string }>;
        };
      };
      return got.data.status === 'completed' && got.data;
    }, 'the import to complete');
    expect(done).toMatchObject({ created_count: 1, error_count: 1, errors: [{ row: 1, field: 'email' }] });
  });
});
