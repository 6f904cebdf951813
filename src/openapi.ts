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
    .build();
  return SwaggerModule.createDocument(app, config, {
    operationIdFactory: (controller, method) => `${controller}.${method}`,
  });
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
