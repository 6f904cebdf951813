/**
 * The rules every operation of the API document follows, applied to the document Nest generates
 * from the controllers and DTOs. They are rules the service itself applies to every route (the
 * global pipes, interceptors, limiter and error mapping), so they are written once here rather than
 * repeated on 50 handlers, and what is documented stays what is enforced:
 *
 * - statuses: every operation lists what it can answer (404 with a path id, 422 with a query or a
 *   body, 400/413 with a body, 409 and 422 for Idempotency-Key, 500 and 503 everywhere, the 401/403/
 *   429 of the auth decorator) and a `default` error envelope;
 * - headers: X-Request-Id on every answer, RateLimit and RateLimit-Policy on every answer of a keyed
 *   route, Retry-After on 429 and 503, Idempotent-Replayed on successes of POST and PATCH;
 * - types: integers are `integer` (ids and id filters `int64`, from 1), a `number` is kept only
 *   where a DTO says `format: 'double'`; UUID path parameters are `format: uuid`; date filters accept
 *   a date or a date-time; request objects are `additionalProperties: false` (the validation pipe
 *   rejects unknown fields);
 * - documentation: each operation's description ends with what the code decides (scopes, paging,
 *   idempotency), and every JSON request and response carries an example sampled from its schema.
 */
import type { OpenAPIObject } from '@nestjs/swagger';
import { sample } from 'openapi-sampler';
import { schemaRules } from '../common/http/schema-rules.js';

type Json = Record<string, unknown>;
type Schema = Json & {
  type?: string | string[];
  format?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  $ref?: string;
  additionalProperties?: boolean | Schema;
};
interface Parameter extends Json {
  name: string;
  in: string;
  schema?: Schema;
  required?: boolean;
}
interface Operation extends Json {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema; example?: unknown }> };
  responses: Record<string, Json & { description?: string; headers?: Json; content?: Json }>;
  security?: Array<Record<string, string[]>>;
  description?: string;
  summary?: string;
}

const ERROR = { $ref: '#/components/schemas/ErrorEnvelopeDto' };
const HEADER = (name: string): Json => ({ $ref: `#/components/headers/${name}` });
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Path parameters that carry a UUID (the routes parse them with UuidPipe). */
const UUID_PARAMS = new Set(['inbox', 'inbox_id', 'workspace_uuid', 'workspace']);
/** Query filters that take a date or a timestamp (parseTimestamp). */
const TIMESTAMP_FILTERS = new Set(['created_after', 'created_before', 'updated_after']);

export const HEADERS: Record<string, Json> = {
  'X-Request-Id': {
    description: 'The request id (echoed when the client sent a sane one); quote it when reporting a problem',
    schema: { type: 'string', maxLength: 128 },
  },
  RateLimit: {
    description:
      'Remaining requests of the key in the current window and seconds until it resets (IETF RateLimit header fields)',
    schema: { type: 'string', example: '"per-key";r=599;t=60' },
  },
  'RateLimit-Policy': {
    description: 'The quota of the key: requests per window of seconds',
    schema: { type: 'string', example: '"per-key";q=600;w=60' },
  },
  'Retry-After': {
    description: 'Seconds to wait before trying again',
    schema: { type: 'integer', minimum: 0 },
  },
  'Idempotent-Replayed': {
    description:
      'Present (true) when the answer, success or refusal, is the stored answer of an earlier request with the same key',
    schema: { type: 'string', enum: ['true'] },
  },
};

const IDEMPOTENCY_KEY: Parameter = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes the request safe to retry for 24 hours: the same key with the same body replays the stored answer ' +
    '(Idempotent-Replayed: true); with another body → 422 idempotency_key_reused; while the first is still ' +
    'running → 409 idempotency_key_in_use. 1 to 255 visible ASCII characters, e.g. a UUID.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]+$' },
  example: '6f1c2a8e-9b3d-4c55-8f0e-2d7a1b9c4e10',
};

const STANDARD_ERRORS: Record<string, string> = {
  '400': 'invalid_request: the body is not valid JSON, or cannot be decoded',
  '404': 'not_found: no such resource in this tenant (also for a malformed id)',
  '409': 'conflict, or idempotency_key_in_use: a request with this Idempotency-Key is still running',
  '413': 'payload_too_large: the body is over the size limit of this route',
  '422': 'validation_failed (the field is named), or idempotency_key_reused',
  '500': 'internal_error: a defect; nothing half-done is left behind; retry with the same Idempotency-Key',
  '503': 'service_unavailable: a dependency (PostgreSQL, Redis) is unavailable; retry after Retry-After',
};

export interface TagInfo {
  name: string;
  description: string;
}

/** Applies every convention to `doc` in place. `tags` become the document's top-level tag list. */
export function applyConventions(doc: OpenAPIObject, tags: TagInfo[]): void {
  const json = doc as unknown as Json & { components: Json & { schemas: Record<string, Schema> } };
  json.components.headers = { ...HEADERS };
  for (const [name, schema] of Object.entries(json.components.schemas)) {
    normalizeSchema(schema, name);
    Object.assign(schema, schemaRules().get(name) ?? {});
  }
  const requestSchemas = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = (item as Record<string, Operation | undefined>)[method];
      if (!op) continue;
      applyToOperation(path, method, op, requestSchemas);
    }
  }
  closeRequestSchemas(json.components.schemas, requestSchemas);
  addExamples(doc);
  const used = new Set(
    Object.values(doc.paths).flatMap((item) =>
      METHODS.flatMap((m) => ((item as Record<string, Operation | undefined>)[m]?.tags as string[]) ?? []),
    ),
  );
  (doc as unknown as Json).tags = tags.filter((t) => used.has(t.name));
}

function applyToOperation(path: string, method: string, op: Operation, requestSchemas: Set<string>): void {
  const keyed = (op.security ?? []).some((s) => 'bearer' in s);
  const idempotent = keyed && (method === 'post' || method === 'patch');
  const params = op.parameters ?? [];
  for (const p of params) normalizeParameter(p);
  if (idempotent) {
    op.parameters = [
      ...params.filter((p) => !(p.in === 'header' && p.name === 'Idempotency-Key')),
      IDEMPOTENCY_KEY,
    ];
  }
  const hasPathId = params.some((p) => p.in === 'path');
  const hasQuery = params.some((p) => p.in === 'query');
  const hasBody = op.requestBody !== undefined;
  for (const media of Object.values(op.requestBody?.content ?? {})) {
    const ref = media.schema?.$ref;
    if (ref) requestSchemas.add(ref.split('/').pop()!);
  }

  const statuses = new Set<string>(['413', '500', '503']);
  if (hasPathId) statuses.add('404');
  if (hasQuery || hasBody || idempotent) statuses.add('422');
  if (hasBody) statuses.add('400');
  if (idempotent) statuses.add('409');
  for (const status of statuses) {
    op.responses[status] ??= { description: STANDARD_ERRORS[status], content: errorContent() };
  }
  op.responses.default ??= {
    description: 'Any other error, in the error envelope',
    content: errorContent(),
  };
  for (const [status, response] of Object.entries(op.responses)) {
    if ('$ref' in response) continue;
    const headers: Json = { ...(response.headers as Json | undefined) };
    headers['X-Request-Id'] = HEADER('X-Request-Id');
    if (keyed && status !== '401') {
      headers.RateLimit = HEADER('RateLimit');
      headers['RateLimit-Policy'] = HEADER('RateLimit-Policy');
    }
    if (status === '429' || status === '503') headers['Retry-After'] = HEADER('Retry-After');
    // Stored answers are replayed with their status, errors included (not 5xx: those are not stored).
    if (idempotent && !/^5/.test(status)) headers['Idempotent-Replayed'] = HEADER('Idempotent-Replayed');
    response.headers = headers;
    // Error answers without a body schema get the envelope (every error is one).
    if (/^[45]|default/.test(status) && !response.content) response.content = errorContent();
  }
  op.description = describe(op, { keyed, idempotent, paged: params.some((p) => p.name === 'cursor'), path });
}

function errorContent(): Json {
  return { 'application/json': { schema: ERROR } };
}

/** The facts the code decides, appended to the operation's own description. */
function describe(
  op: Operation,
  f: { keyed: boolean; idempotent: boolean; paged: boolean; path: string },
): string {
  const scopes = (op.security ?? []).flatMap((s) => s.bearer ?? []);
  const facts: string[] = [];
  if (f.keyed) {
    facts.push(
      scopes.length
        ? `Requires an API key with scope ${scopes.map((s) => `\`${s}\``).join(' and ')}.`
        : 'Any valid API key.',
    );
  }
  if (f.paged) {
    facts.push(
      'A page of the list, newest first: follow `next_cursor` (or `links.next`) until it is null; `per_page` 1 to 100 (default 25).',
    );
  }
  if (f.idempotent) facts.push('Send an `Idempotency-Key` to make a retry safe.');
  const own = (op.description ?? '').trim();
  const lead = own || (op.summary ? `${op.summary.replace(/\.$/, '')}.` : '');
  return [lead, ...facts].filter(Boolean).join('\n\n');
}

function normalizeParameter(p: Parameter): void {
  const schema = (p.schema ??= { type: 'string' });
  if (p.in === 'path' && UUID_PARAMS.has(p.name)) schema.format = 'uuid';
  if (TIMESTAMP_FILTERS.has(p.name)) {
    const { format: _f, type: _t, ...rest } = schema;
    p.schema = {
      ...rest,
      anyOf: [
        { type: 'string', format: 'date-time' },
        { type: 'string', format: 'date' },
      ],
    };
    return;
  }
  normalizeSchema(schema, p.name);
  if (p.in === 'path' && schema.type === 'integer') schema.minimum ??= 1;
}

const isIdName = (name: string | undefined): boolean => !!name && /(^id$|_id$|_ids$)/.test(name);

/** number → integer (unless `format: double|float`), int64 for ids; walks nested schemas. */
function normalizeSchema(schema: Schema | undefined, name?: string): void {
  if (!schema || typeof schema !== 'object') return;
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.includes('number') && schema.format !== 'double' && schema.format !== 'float') {
    schema.type = Array.isArray(schema.type)
      ? schema.type.map((t) => (t === 'number' ? 'integer' : t))
      : 'integer';
  }
  const nowTypes = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (nowTypes.includes('integer') && isIdName(name)) {
    schema.format = 'int64';
    schema.minimum ??= 1;
  }
  for (const [prop, child] of Object.entries(schema.properties ?? {})) normalizeSchema(child, prop);
  if (schema.items) normalizeSchema(schema.items, name);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    for (const child of (schema[key] as Schema[] | undefined) ?? []) normalizeSchema(child, name);
  }
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    normalizeSchema(schema.additionalProperties);
  }
}

/** Request objects and the objects they contain reject unknown properties, as the service does. */
function closeRequestSchemas(schemas: Record<string, Schema>, roots: Set<string>): void {
  const seen = new Set<string>();
  const visit = (schema: Schema | undefined): void => {
    if (!schema || typeof schema !== 'object') return;
    if (schema.$ref) {
      const name = schema.$ref.split('/').pop()!;
      if (seen.has(name) || !schemas[name]) return;
      seen.add(name);
      visit(schemas[name]);
      return;
    }
    if (schema.properties && schema.additionalProperties === undefined) schema.additionalProperties = false;
    for (const child of Object.values(schema.properties ?? {})) visit(child);
    visit(schema.items);
    for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
      for (const child of (schema[key] as Schema[] | undefined) ?? []) visit(child);
    }
  };
  for (const root of roots) visit({ $ref: `#/components/schemas/${root}` });
}

/** An example on every JSON request and response without one, sampled from its schema. */
function addExamples(doc: OpenAPIObject): void {
  for (const item of Object.values(doc.paths)) {
    for (const method of METHODS) {
      const op = (item as Record<string, Operation | undefined>)[method];
      if (!op) continue;
      const media: Array<[string, string, { schema?: Schema; example?: unknown }]> = [
        ...Object.entries(op.requestBody?.content ?? {}).map(([t, m]) => ['request', t, m] as const),
        ...Object.entries(op.responses).flatMap(([status, r]) =>
          Object.entries((r.content as Record<string, { schema?: Schema; example?: unknown }>) ?? {}).map(
            ([t, m]) => [status, t, m] as const,
          ),
        ),
      ].map(([status, t, m]) => [status, t, m]);
      for (const [status, type, m] of media) {
        if (type !== 'application/json' || !m.schema || m.example !== undefined || 'examples' in m) continue;
        m.example =
          m.schema.$ref === ERROR.$ref
            ? errorExample(status)
            : sample(m.schema as never, { skipReadOnly: false, quiet: true }, doc as never);
      }
    }
  }
}

const ERROR_EXAMPLES: Record<string, [type: string, message: string, field?: string]> = {
  '400': ['invalid_request', 'The body is not valid JSON'],
  '401': ['authentication_failed', 'The API key is missing, malformed, unknown, expired or revoked'],
  '403': ['forbidden', 'This key lacks the scope this route needs'],
  '404': ['not_found', 'Not found'],
  '409': ['idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed'],
  '413': ['payload_too_large', 'The request body is over 1 MiB'],
  '422': ['validation_failed', 'email must be a valid email address', 'email'],
  '429': ['rate_limited', 'Rate limit exceeded: retry after 12 seconds'],
  '500': ['internal_error', 'Something went wrong on our side; request id 2f7c9d1e'],
  '503': ['service_unavailable', 'The service is temporarily unavailable; retry later'],
  default: ['internal_error', 'Something went wrong on our side; request id 2f7c9d1e'],
};

function errorExample(status: string): Json {
  const [type, message, field] = ERROR_EXAMPLES[status] ?? ERROR_EXAMPLES.default;
  return { error: field ? { type, message, field } : { type, message } };
}
