/** OpenAPI 3.1 generated from the routes; served at /api/v1/openapi.json with Swagger UI at /docs. */
import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Outreach Sequencing Service API')
    .setDescription(
      'Multi-tenant email outreach: contacts, sequences, campaigns, enrollments, inboxes, threads, analytics, ' +
        'imports, signed webhooks and agency provisioning. Errors use {"error": {"type", "message", "field"?}}.',
    )
    .setVersion('v1')
    .setLicense('Proprietary', 'https://example.com/license')
    .addServer('/', 'This service')
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', description: 'svc_sk_… (workspace) or svc_pk_… (provisioning)' },
      'bearer',
    )
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        description: 'The per-inbox inbound secret printed by inbox:connect',
      },
      'inboundSecret',
    )
    .build();
  const doc = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (controller, method) => `${controller}.${method}`,
  });
  // Routes without an API key (unsubscribe pages, inbound mail with its own secret) say so explicitly.
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const op of Object.values(item as Record<string, { security?: unknown[] }>)) {
      if (typeof op !== 'object' || !op || op.security) continue;
      op.security = path.includes('/inbound/') ? [{ inboundSecret: [] }] : [];
    }
  }
  return doc;
}

export function setupOpenApi(app: INestApplication): void {
  let doc: OpenAPIObject | undefined;
  const lazy = (): OpenAPIObject => (doc ??= buildOpenApiDocument(app));
  SwaggerModule.setup('docs', app, lazy, {
    jsonDocumentUrl: 'api/v1/openapi.json',
    yamlDocumentUrl: 'api/v1/openapi.yaml',
    useGlobalPrefix: false,
  });
}
