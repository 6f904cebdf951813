/**
 * Every route of the published document, fed hostile input: path ids that are not ids (or too large, or
 * another workspace's), query values of the wrong type, bodies that are not objects, and each body
 * field in turn replaced by a value of the wrong type, too long, too deep or holding a NUL. The answer
 * is always an answer in the error envelope (or a success), never a 500 (a 503 only where an outside
 * server is away: the manual reply's SMTP server here). The routes are read from
 * `openapi.json`, so a route added later is covered without touching this file.
 */
import { readFileSync } from 'node:fs';
import request from 'supertest';
import { api, createTenant, mintKey, q, type TestTenant, useApp, app } from '../helpers/app.js';
import { seedCampaign, seedContact, seedEnrollment, type SeededCampaign } from '../helpers/seed.js';
import { WORKSPACE_SCOPES } from '../../src/common/auth/scopes.js';

interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  $ref?: string;
  allOf?: Schema[];
}
interface Operation {
  parameters?: Array<{ name: string; in: string; $ref?: string }>;
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  security?: Array<Record<string, string[]>>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; parameters?: Record<string, { name: string; in: string }> };
}

const doc = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8')) as Document;

/** The properties of a request body's schema (through `$ref` and `allOf`). */
function propertiesOf(schema: Schema | undefined, depth = 0): string[] {
  if (!schema || depth > 5) return [];
  if (schema.$ref) return propertiesOf(doc.components.schemas[schema.$ref.split('/').pop()!], depth + 1);
  const own = Object.keys(schema.properties ?? {});
  return [...own, ...(schema.allOf ?? []).flatMap((s) => propertiesOf(s, depth + 1))];
}

/** `[[[…1…]]]`, `n` deep, as JSON text (JSON.stringify itself would run out of stack). */
const deep = (n: number): string => `${'['.repeat(n)}1${']'.repeat(n)}`;

/** Values of the wrong shape for any field, as JSON text. */
const HOSTILE_VALUES: string[] = [
  null,
  true,
  -1,
  1e308,
  '99999999999999999999999',
  'x'.repeat(70_000),
  'a\u0000b',
  '\ud800',
  {},
  [],
  [{}],
  { $ne: 1 },
  '2026-13-45T25:61:00Z',
].map((v) => JSON.stringify(v));
HOSTILE_VALUES.push(deep(2_000));

/** Path ids that are not ids of this workspace. */
const HOSTILE_IDS = ['0', '-1', '99999999999999999999999', 'abc', '1e3', '%00', '..%2F..', '%C3%A9', ' 1'];

/** Query values of the wrong type. */
const HOSTILE_QUERY = ['-1', 'abc', '99999999999999999999999', '', '%00', '2026-13-45', 'a&x=1', '[]'];

describe('every route, hostile input: never a 500', () => {
  useApp();
  let t: TestTenant;
  let token: string;
  let c: SeededCampaign;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    t = await createTenant(app);
    token = await mintKey(app, {
      tier: 'workspace',
      workspaceId: t.workspaceId,
      scopes: [...WORKSPACE_SCOPES],
      rateLimit: 1_000_000,
    });
    c = await seedCampaign(q, { workspaceId: t.workspaceId, smtpPort: 1, domain: 'fuzz.test' });
    const contact = await seedContact(q, t.workspaceId, 'fuzz@example.com');
    const enrollment = await seedEnrollment(
      q,
      t.workspaceId,
      c.campaignId,
      contact,
      new Date(Date.now() + 86_400_000),
    );
    const [thread] = (await q(
      `INSERT INTO threads (workspace_id, inbox_id, contact_id, enrollment_id, campaign_id, subject, message_count, last_message_at)
       VALUES ($1, $2, $3, $4, $5, 'Hello', 1, now()) RETURNING id`,
      [t.workspaceId, c.inboxIds[0], contact, enrollment, c.campaignId],
    )) as Array<{ id: number }>;
    const [message] = (await q(
      `INSERT INTO messages (workspace_id, thread_id, enrollment_id, direction, kind, from_address, to_address,
         subject, body, message_id, status, sent_at, step_position, variant)
       VALUES ($1, $2, $3, 'outbound', 'email', 'sender1@fuzz.test', 'fuzz@example.com', 'Hello', 'Hi',
         '<fuzz-1@fuzz.test>', 'sent', now(), 1, 'A') RETURNING id`,
      [t.workspaceId, thread.id, enrollment],
    )) as Array<{ id: number }>;
    const sub = await api(app, token)
      .post(`/campaigns/${c.campaignId}/subsequences`)
      .send({
        name: 'Later',
        trigger: { type: 'category', categories: ['not_now'] },
        sequence_id: c.sequenceId,
      });
    expect(sub.status).toBe(201);
    const hook = await api(app, token)
      .post('/webhook-endpoints')
      .send({ url: 'https://127.0.0.1:9/hook', events: ['*'] });
    Object.assign(ids, {
      workspace_uuid: t.workspaceId,
      contact: String(contact),
      sequence: String(c.sequenceId),
      campaign: String(c.campaignId),
      inbox: c.inboxIds[0],
      inbox_id: c.inboxIds[0],
      enrollment: String(enrollment),
      thread: String(thread.id),
      message: String(message.id),
      subsequence: String(sub.body.data.id),
      id: String(hook.body?.data?.id ?? 1),
      delivery_id: '1',
      import: '1',
      provider: 'google',
      token: 'not-a-token',
    });
  });

  type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';
  const operations = Object.entries(doc.paths)
    .flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([m]) => ['get', 'post', 'patch', 'put', 'delete'].includes(m))
        .map(([m, op]) => ({ path, method: m as Method, op })),
    )
    // Deletions last, so the other routes meet the ids while they still exist.
    .sort((a, b) => Number(a.method === 'delete') - Number(b.method === 'delete'));

  function send(method: Method, path: string, op: Operation, body?: string): Promise<request.Response> {
    const scheme = Object.keys(op.security?.[0] ?? {})[0];
    let req = request(app.getHttpServer())[method](path);
    if (scheme === 'inboundSecret') req = req.set('Authorization', `Bearer ${c.inboundSecrets[0]}`);
    else if (path.startsWith('/api/v1/provisioning'))
      req = req.set('Authorization', `Bearer ${t.provisioningToken}`);
    else if (scheme) req = req.set('Authorization', `Bearer ${token}`);
    if (body === undefined) return req;
    const type = path.startsWith('/api/v1/inbound/') ? 'message/rfc822' : 'application/json';
    return req.set('Content-Type', type).send(body);
  }

  const fill = (path: string, override?: [string, string]) =>
    path.replace(/\{([^}]+)\}/g, (_, name: string) =>
      override && override[0] === name
        ? override[1]
        : encodeURIComponent(ids[name] ?? '1').replace(/%25/g, '%'),
    );

  it('answers every route in the error envelope or with success, never 500', async () => {
    const failures: string[] = [];
    let sent = 0;
    const check = (what: string, res: request.Response) => {
      sent += 1;
      // 503 is the documented answer when an outside server (the inbox's SMTP server here) is away.
      const unavailable = res.status === 503 && res.body?.error?.type === 'service_unavailable';
      if (res.status >= 500 && !unavailable)
        failures.push(`${what} → ${res.status} ${res.text.slice(0, 200)}`);
      else if (
        res.status >= 400 &&
        res.type === 'application/json' &&
        typeof res.body?.error?.type !== 'string'
      )
        failures.push(`${what} → ${res.status} without the error envelope: ${res.text.slice(0, 200)}`);
    };

    for (const { path, method, op } of operations) {
      const params = path.match(/\{([^}]+)\}/g)?.map((p) => p.slice(1, -1)) ?? [];
      const fields = propertiesOf(op.requestBody?.content?.['application/json']?.schema);
      const hasBody = op.requestBody !== undefined;
      const bodyOf = (v: unknown) => (hasBody ? JSON.stringify(v) : undefined);

      // Path ids that are not this workspace's ids.
      for (const name of params)
        for (const bad of HOSTILE_IDS) {
          const url = fill(path, [name, bad]);
          check(`${method.toUpperCase()} ${url}`, await send(method, url, op, bodyOf({})));
        }

      const url = fill(path);
      // Query parameters of the wrong type (list filters, cursors, limits).
      const queryNames = (op.parameters ?? [])
        .map((p) => (p.$ref ? doc.components.parameters?.[p.$ref.split('/').pop()!] : p))
        .filter((p): p is { name: string; in: string } => p?.in === 'query')
        .map((p) => p.name);
      for (const name of queryNames)
        for (const bad of HOSTILE_QUERY) {
          const u = `${url}?${encodeURIComponent(name)}=${encodeURIComponent(bad)}&${encodeURIComponent(name)}=1`;
          check(`${method.toUpperCase()} ${u}`, await send(method, u, op, bodyOf({})));
        }

      if (!hasBody) continue;
      // Bodies that are not objects, or not JSON at all.
      for (const raw of ['null', '[]', '"text"', '123', '{"a":', '{}', deep(5_000)])
        check(`${method.toUpperCase()} ${url} body ${raw.slice(0, 20)}`, await send(method, url, op, raw));
      // Each field in turn of the wrong type.
      for (const field of fields)
        for (const value of HOSTILE_VALUES)
          check(
            `${method.toUpperCase()} ${url} {${field}: ${value.slice(0, 30)}}`,
            await send(method, url, op, `{${JSON.stringify(field)}:${value}}`),
          );
    }
    expect(failures).toEqual([]);
    // Every route was reached: the document has more than 60 operations, each met at least once.
    expect(operations.length).toBeGreaterThan(60);
    expect(sent).toBeGreaterThan(1_000);
  }, 300_000);
});
