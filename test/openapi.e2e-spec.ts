import { readFileSync, writeFileSync } from 'node:fs';
import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { buildOpenApiDocument } from '../src/openapi.js';
import { bootApp } from './helpers/app.js';

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
  let app: NestExpressApplication;
  beforeAll(async () => {
    app = await bootApp();
  });
  afterAll(() => app.close());

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
});
