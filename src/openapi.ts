/**
 * OpenAPI 3.1 generated from the routes and DTOs, with the rules every route shares applied once
 * (src/openapi/conventions.ts); served at /api/v1/openapi.json with Swagger UI at /docs, committed as
 * openapi.json (test/openapi/document.e2e-spec.ts keeps the two equal).
 */
import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { appConfig } from './config/app-config.js';
import { applyConventions, type TagInfo } from './openapi/conventions.js';

/** The document's tags, in reading order: what each group of operations is for. */
export const TAGS: TagInfo[] = [
  { name: 'me', description: 'The key in use: its tier, scopes, tenant and rate limit.' },
  {
    name: 'provisioning',
    description: 'Agency keys (svc_pk_…): client workspaces, their configuration, keys and seed data.',
  },
  {
    name: 'contacts',
    description: 'People to reach, keyed by normalised email, with custom fields and stage.',
  },
  { name: 'suppressions', description: 'Addresses and domains that are never sent to.' },
  { name: 'sequences', description: 'Multi-step email templates (Liquid), drafted then published.' },
  { name: 'campaigns', description: 'A published sequence sent from connected inboxes on a schedule.' },
  { name: 'enrollments', description: 'A contact in a campaign: its progress, pause, resume and stop.' },
  { name: 'inboxes', description: 'Connected sending inboxes (connected with the CLI) and their health.' },
  { name: 'threads', description: 'Conversations: every message sent and received, and manual replies.' },
  { name: 'analytics', description: 'Daily counters per campaign.' },
  { name: 'imports', description: 'Bulk contact imports (CSV or JSON), processed in the background.' },
  {
    name: 'webhooks',
    description: 'Signed event deliveries to your endpoints, with retries, redelivery and test deliveries.',
  },
  { name: 'inbound', description: 'Raw mail handed over by an MTA pipe (replies, bounces, complaints).' },
  { name: 'unsubscribe', description: 'The public pages behind List-Unsubscribe links (RFC 8058).' },
];

/**
 * The committed document's server: any installation, `localhost:3000` (the default port) by
 * default. Its variables carry no `description` (swagger-parser's OpenAPI 3.1 schema misspells that
 * field and refuses it); the server's own description says what they mean.
 */
const COMMITTED_SERVERS = [
  {
    url: '{scheme}://{host}',
    description:
      'Your installation: scheme, and host with port (the default port is 3000). The copy a running service ' +
      'serves (/api/v1/openapi.json, and Swagger UI at /docs) names that service instead: PUBLIC_URL, else ' +
      'http://localhost:PORT',
    variables: { scheme: { default: 'http', enum: ['http', 'https'] }, host: { default: 'localhost:3000' } },
  },
];

/**
 * The document as the running service serves it: its one server is this service (PUBLIC_URL, else
 * http://localhost:PORT), so Swagger UI's "Try it out" and generated clients call it.
 */
export function servedOpenApiDocument(app: INestApplication, publicUrl: string): OpenAPIObject {
  const doc = buildOpenApiDocument(app);
  (doc as { servers?: unknown }).servers = [
    { url: publicUrl, description: 'This installation (PUBLIC_URL, else http://localhost:PORT)' },
  ];
  return doc;
}

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Outreach Sequencing Service API')
    .setDescription(
      'Multi-tenant email outreach: contacts, sequences, campaigns, enrollments, inboxes, threads, analytics, ' +
        'imports, signed webhooks and agency provisioning.\n\n' +
        'Errors use one envelope, `{"error": {"type", "message", "field"?}}`, with `type` from a closed set. ' +
        'Ids are 64-bit integers (JSON numbers below 2^53). Lists are cursor-paged, newest first. ' +
        'Every keyed answer carries `RateLimit` and `RateLimit-Policy`; every answer carries `X-Request-Id`.',
    )
    .setVersion('v1')
    .setLicense('Apache-2.0', 'https://www.apache.org/licenses/LICENSE-2.0')
    .build();
  const doc = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (controller, method) => `${controller}.${method}`,
  });
  (doc as { servers?: unknown }).servers = COMMITTED_SERVERS;
  doc.components = {
    ...doc.components,
    securitySchemes: {
      bearer: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'opaque API key',
        description:
          'An API key: `svc_sk_…` (workspace key) or `svc_pk_…` (provisioning key). The scopes a route needs are ' +
          'listed in its security requirement.',
      },
      inboundSecret: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'opaque secret',
        description: 'The per-inbox inbound secret printed by inbox:connect',
      },
    },
  };
  // Routes without an API key (unsubscribe pages, inbound mail with its own secret) say so explicitly.
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const op of Object.values(item as Record<string, { security?: unknown[] }>)) {
      if (typeof op !== 'object' || !op || op.security) continue;
      op.security = path.includes('/inbound/') ? [{ inboundSecret: [] }] : [];
    }
  }
  applyConventions(doc, TAGS);
  return doc;
}

/**
 * The origins this service answers on: PUBLIC_URL's, and the loopback names of its own port
 * (localhost, 127.0.0.1, [::1]), which a newcomer types interchangeably.
 */
export function ownOrigins(publicUrl: string, port: number): Set<string> {
  const origins = new Set<string>([
    `http://localhost:${port}`,
    `http://127.0.0.1:${port}`,
    `http://[::1]:${port}`,
  ]);
  try {
    origins.add(new URL(publicUrl).origin);
  } catch {
    // PUBLIC_URL is checked at start; an unparsable one only loses its own entry here.
  }
  return origins;
}

/**
 * The server a reader of the document should call: the origin it fetched the document from when
 * that is one of the service's own (so "Try it out" from http://127.0.0.1:PORT/docs calls
 * 127.0.0.1, not localhost, and needs no cross-origin request), else PUBLIC_URL.
 */
export function serverForRequest(
  req: { protocol?: string; headers: Record<string, string | string[] | undefined> },
  publicUrl: string,
  port: number,
): string {
  const host = req.headers.host;
  if (typeof host !== 'string') return publicUrl;
  const origin = `${req.protocol === 'https' ? 'https' : 'http'}://${host.toLowerCase()}`;
  return ownOrigins(publicUrl, port).has(origin) ? origin : publicUrl;
}

export function setupOpenApi(app: INestApplication): void {
  let doc: OpenAPIObject | undefined;
  const lazy = (): OpenAPIObject => (doc ??= servedOpenApiDocument(app, appConfig().publicUrl));
  SwaggerModule.setup('docs', app, lazy, {
    jsonDocumentUrl: 'api/v1/openapi.json',
    yamlDocumentUrl: 'api/v1/openapi.yaml',
    useGlobalPrefix: false,
    patchDocumentOnRequest: (req, _res, document) => {
      const { publicUrl, port } = appConfig();
      const url = serverForRequest(req as Parameters<typeof serverForRequest>[0], publicUrl, port);
      if (url === publicUrl) return document;
      return { ...document, servers: [{ url, description: 'This installation, as this page was reached' }] };
    },
  });
}
