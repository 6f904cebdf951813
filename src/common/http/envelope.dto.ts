/** OpenAPI shapes of the envelopes, and decorators that document `{data}` and collection answers. */
import { applyDecorators, type Type } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiProperty,
  ApiPropertyOptional,
  ApiResponse,
  getSchemaPath,
} from '@nestjs/swagger';
import { ERROR_TYPES } from './api-error.js';

export class ErrorDetailDto {
  @ApiProperty({ enum: ERROR_TYPES, example: 'validation_failed' }) type: string;
  @ApiProperty() message: string;
  @ApiPropertyOptional({ description: 'Offending request field, dotted' }) field?: string;
}

export class ErrorEnvelopeDto {
  @ApiProperty({ type: ErrorDetailDto }) error: ErrorDetailDto;
}

export class LinksDto {
  @ApiProperty({ type: String, nullable: true }) first: string | null;
  @ApiProperty({ type: String, nullable: true }) last: string | null;
  @ApiProperty({ type: String, nullable: true }) prev: string | null;
  @ApiProperty({ type: String, nullable: true }) next: string | null;
}

export class MetaDto {
  @ApiProperty({ type: String, nullable: true }) path: string | null;
  @ApiProperty({ minimum: 0 }) per_page: number;
  @ApiProperty({ type: String, nullable: true }) next_cursor: string | null;
  @ApiProperty({ type: String, nullable: true }) prev_cursor: string | null;
}

/** `{data: model}`; `example` (the `data` object) is shown as the answer's example. */
export function ApiDataResponse(
  model: Type<unknown>,
  status = 200,
  description = 'OK',
  example?: Record<string, unknown>,
): MethodDecorator {
  return applyDecorators(
    ApiExtraModels(model),
    ApiResponse({
      status,
      description,
      schema: {
        type: 'object',
        required: ['data'],
        properties: { data: { $ref: getSchemaPath(model) } },
        ...(example ? { example: { data: example } } : {}),
      },
    }),
  );
}

export function ApiCollectionResponse(model: Type<unknown>): MethodDecorator {
  return applyDecorators(
    ApiExtraModels(model, LinksDto, MetaDto),
    ApiResponse({
      status: 200,
      description: 'A page of results, newest first',
      schema: {
        type: 'object',
        required: ['data', 'next_cursor', 'links', 'meta'],
        properties: {
          data: { type: 'array', items: { $ref: getSchemaPath(model) } },
          next_cursor: { type: 'string', nullable: true },
          links: { $ref: getSchemaPath(LinksDto) },
          meta: { $ref: getSchemaPath(MetaDto) },
        },
      },
    }),
  );
}

export function ApiErrorResponses(...statuses: number[]): MethodDecorator {
  const text: Record<number, string> = {
    400: 'Malformed request',
    404: 'Not found in this tenant',
    409: 'Conflicts with the current state',
    413: 'Body too large',
    422: 'Validation failed',
  };
  return applyDecorators(
    ...statuses.map((s) =>
      ApiResponse({ status: s, description: text[s] ?? 'Error', type: ErrorEnvelopeDto }),
    ),
  );
}
