/**
 * Real traffic checked against the committed API document (openapi.json).
 *
 * `recordTraffic(server)` taps the HTTP server of an in-process app (bootApp does it for every e2e
 * test file when OPENAPI_TRAFFIC_FILE is set, which global-setup does): every exchange is appended
 * to that file as one JSON line: method, path and query, request headers and parsed JSON body,
 * status, response headers and body. `validateTraffic(exchanges)` replays them against the
 * document and returns every mismatch:
 *
 * - the route is documented (or it is an undocumented path answered 404/405 with the envelope);
 * - the status is documented for the operation (or covered by its `default`);
 * - a JSON answer validates against the documented schema of that status;
 * - every service header on the answer (RateLimit, RateLimit-Policy, X-Request-Id, Retry-After,
 *   Idempotent-Replayed) is documented for that answer;
 * - a request the service accepted (2xx) validates against the document: path and query
 *   parameters and the JSON body. A request the document rejects must not be accepted.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

export interface Exchange {
  method: string;
  url: string;
  requestHeaders: Record<string, string>;
  requestBody?: unknown;
  status: number;
  responseHeaders: Record<string, string>;
  responseBody: string;
}

/** Paths outside the API document on purpose: operations routes and the documentation itself. */
const OUTSIDE = [/^\/health\//, /^\/metrics$/, /^\/docs/, /^\/api\/v1\/openapi\.(json|yaml)$/];
const SERVICE_HEADERS = [
  'ratelimit',
  'ratelimit-policy',
  'x-request-id',
  'retry-after',
  'idempotent-replayed',
];

const tapped = new WeakSet<Server>();

/** Appends every exchange of `server` to `file`. */
export function recordTraffic(server: Server, file: string): void {
  if (tapped.has(server)) return;
  tapped.add(server);
  const listeners = server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    const write = res.write.bind(res) as (...a: unknown[]) => boolean;
    const end = res.end.bind(res) as (...a: unknown[]) => ServerResponse;
    const keep = (chunk: unknown): void => {
      if (typeof chunk === 'string') chunks.push(Buffer.from(chunk));
      else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
    };
    res.write = ((...a: unknown[]) => {
      keep(a[0]);
      return write(...a);
    }) as typeof res.write;
    res.end = ((...a: unknown[]) => {
      if (typeof a[0] !== 'function') keep(a[0]);
      return end(...a);
    }) as typeof res.end;
    res.on('finish', () => {
      const body = (req as IncomingMessage & { body?: unknown }).body;
      const exchange: Exchange = {
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        requestHeaders: {
          'content-type': String(req.headers['content-type'] ?? ''),
          'content-length': String(req.headers['content-length'] ?? ''),
          'transfer-encoding': String(req.headers['transfer-encoding'] ?? ''),
          ...(req.headers['idempotency-key'] !== undefined
            ? { 'idempotency-key': String(req.headers['idempotency-key']) }
            : {}),
        },
        ...(body !== undefined && !Buffer.isBuffer(body) ? { requestBody: body } : {}),
        status: res.statusCode,
        responseHeaders: Object.fromEntries(
          Object.entries(res.getHeaders()).map(([k, v]) => [k.toLowerCase(), String(v)]),
        ),
        responseBody: Buffer.concat(chunks)
          .subarray(0, 512 * 1024)
          .toString('utf8'),
      };
      try {
        appendFileSync(file, `${JSON.stringify(exchange)}\n`);
      } catch {
        // A recording that cannot be written is not the test's failure.
      }
    });
    for (const l of listeners) l.call(server, req, res);
  });
}

export function readTraffic(file: string): Exchange[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Exchange);
}

type Json = Record<string, unknown>;
interface Operation {
  path: string;
  method: string;
  regex: RegExp;
  names: string[];
  op: Json & { parameters?: Json[]; requestBody?: Json; responses: Record<string, Json> };
  pointer: string;
}

const escapePointer = (s: string): string => s.replace(/~/g, '~0').replace(/\//g, '~1');

export function validateTraffic(exchanges: Exchange[], doc: Json): string[] {
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  addFormats.default(ajv);
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
  ajv.addFormat('double', true);
  ajv.addSchema(doc, 'openapi');
  const validators = new Map<string, ReturnType<typeof ajv.compile>>();
  const validatorAt = (pointer: string) => {
    let v = validators.get(pointer);
    if (!v) {
      v = ajv.compile({ $ref: `openapi#${pointer}` });
      validators.set(pointer, v);
    }
    return v;
  };

  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const names: string[] = [];
      const regex = new RegExp(
        `^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{([^}]+)\}/g, (_, n: string) => {
          names.push(n);
          return '([^/]+)';
        })}$`,
      );
      operations.push({
        path,
        method,
        regex,
        names,
        op: op as Operation['op'],
        pointer: `/paths/${escapePointer(path)}/${method}`,
      });
    }
  }
  // Literal segments win over parameters (/contacts/import before /contacts/{contact}).
  operations.sort((a, b) => a.names.length - b.names.length);

  const problems = new Map<string, number>();
  const problem = (text: string): void => void problems.set(text, (problems.get(text) ?? 0) + 1);
  const errorsOf = (v: ReturnType<typeof ajv.compile>): string =>
    (v.errors ?? [])
      .slice(0, 3)
      .map((e) => `${e.instancePath || '(root)'} ${e.message}`)
      .join('; ');

  for (const x of exchanges) {
    const url = new URL(x.url, 'http://x');
    const path = url.pathname;
    if (OUTSIDE.some((r) => r.test(path))) continue;
    // HEAD is GET without the body (HTTP semantics; Express answers it for every GET route).
    const method = x.method === 'HEAD' ? 'get' : x.method.toLowerCase();
    const samePath = operations.filter((o) => o.regex.test(path));
    const match = samePath.find((o) => o.method === method);
    const isJson = /json/.test(x.responseHeaders['content-type'] ?? '');
    if (!match) {
      // Not an operation of the document: it must be refused, with the envelope.
      if (![404, 405, 413, 400, 401].includes(x.status)) {
        problem(`${x.method} ${samePath[0]?.path ?? path}: undocumented route answered ${x.status}`);
      } else if (isJson) {
        const v = validatorAt('/components/schemas/ErrorEnvelopeDto');
        if (!v(JSON.parse(x.responseBody || 'null')))
          problem(`undocumented route ${x.status}: ${errorsOf(v)}`);
      }
      continue;
    }
    const name = `${x.method} ${match.path}`;
    const status = String(x.status);
    const documented = match.op.responses[status] ? status : match.op.responses.default ? 'default' : null;
    if (!documented) {
      problem(`${name}: status ${status} is not documented`);
      continue;
    }
    const response = match.op.responses[documented] as Json & { content?: Json; headers?: Json };
    const responsePointer = `${match.pointer}/responses/${documented}`;
    for (const h of SERVICE_HEADERS) {
      if (x.responseHeaders[h] === undefined) continue;
      const declared = Object.keys(response.headers ?? {}).map((k) => k.toLowerCase());
      if (!declared.includes(h)) problem(`${name} ${status}: header ${h} is not documented`);
    }
    if (x.responseBody && isJson) {
      const content = (response.content ?? {}) as Record<string, Json>;
      if (!content['application/json']?.schema) {
        problem(`${name} ${status}: a JSON body is answered but none is documented`);
      } else {
        const v = validatorAt(`${responsePointer}/content/application~1json/schema`);
        let body: unknown;
        try {
          body = JSON.parse(x.responseBody);
        } catch {
          body = undefined;
        }
        if (body !== undefined && !v(body)) problem(`${name} ${status}: response body ${errorsOf(v)}`);
      }
    } else if (x.responseBody && x.status !== 204) {
      const type = (x.responseHeaders['content-type'] ?? '').split(';')[0].trim();
      if (type && !Object.keys((response.content ?? {}) as Json).includes(type)) {
        problem(`${name} ${status}: answered ${type}, not documented`);
      }
    }
    if (x.status < 200 || x.status > 299) continue;
    // An accepted request conforms to the document.
    const m = match.regex.exec(path)!;
    const params = (match.op.parameters ?? []) as Array<Json & { name: string; in: string; schema?: Json }>;
    params.forEach((p, i) => {
      let raw: string | null = null;
      if (p.in === 'path') raw = decodeURIComponent(m[match.names.indexOf(p.name) + 1] ?? '');
      else if (p.in === 'query') raw = url.searchParams.get(p.name);
      else if (p.in === 'header') raw = x.requestHeaders[p.name.toLowerCase()] ?? null;
      if (raw === null) {
        if (p.required) problem(`${name}: accepted without required ${p.in} parameter ${p.name}`);
        return;
      }
      const v = validatorAt(`${match.pointer}/parameters/${i}/schema`);
      const value = coerce(raw, p.schema ?? {});
      if (!v(value))
        problem(
          `${name}: accepted ${p.in} ${p.name}=${raw.slice(0, 40)} that the document rejects: ${errorsOf(v)}`,
        );
    });
    const requestContent = ((match.op.requestBody as Json | undefined)?.content ?? {}) as Record<
      string,
      Json
    >;
    if (x.requestBody !== undefined && /json/.test(x.requestHeaders['content-type'] ?? '')) {
      if (!requestContent['application/json']) {
        if (x.requestBody && typeof x.requestBody === 'object' && Object.keys(x.requestBody).length) {
          problem(`${name}: accepted a JSON body, none is documented`);
        }
      } else {
        const v = validatorAt(`${match.pointer}/requestBody/content/application~1json/schema`);
        if (!v(x.requestBody)) problem(`${name}: accepted a body the document rejects: ${errorsOf(v)}`);
      }
    } else if (
      x.requestBody === undefined &&
      (match.op.requestBody as Json | undefined)?.required === true &&
      ['', '0'].includes(x.requestHeaders['content-length'] ?? '') &&
      !x.requestHeaders['transfer-encoding']
    ) {
      problem(`${name}: accepted without the required body`);
    }
  }
  return [...problems].map(([text, n]) => (n > 1 ? `${text} (x${n})` : text)).sort();
}

/** A query or path string as the schema's type reads it. */
function coerce(raw: string, schema: Json): unknown {
  const types = ([] as unknown[]).concat(schema.type ?? []);
  if (types.includes('integer') || types.includes('number'))
    return /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
  if (types.includes('boolean')) return raw === 'true' ? true : raw === 'false' ? false : raw;
  if (types.includes('array')) return raw.split(',');
  return raw;
}
