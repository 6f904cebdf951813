import { Controller, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Tenant, WorkspaceAuth } from '../../common/auth/auth.decorator.js';
import type { WorkspaceTenant } from '../../common/auth/principal.js';
import { ApiCollectionResponse, ApiDataResponse, ApiErrorResponses } from '../../common/http/envelope.dto.js';
import { IntIdPipe } from '../../common/http/id-params.js';
import { collection, PageQueryDto, type Collection } from '../../common/http/pagination.js';
import { RawBody } from '../../common/http/request-body.js';
import { CreateImportDto } from './dto/create-import.dto.js';
import { ImportResponseDto } from './dto/import-response.dto.js';
import { importBodyItems } from './import-body.js';
import { importBodyLimitOf } from './import-body-limit.js';
import { ImportQueue } from './import-queue.js';
import { toImportView, type ImportView } from './import.view.js';
import { ImportsService } from './imports.service.js';

@ApiTags('imports')
@Controller()
export class ImportsController {
  constructor(
    private readonly imports: ImportsService,
    private readonly queue: ImportQueue,
  ) {}

  @Post('contacts/import')
  @HttpCode(202)
  @WorkspaceAuth('imports:write')
  @ApiOperation({
    operationId: 'v1.contacts.import',
    summary: 'Stage a bulk import of contacts (JSON rows or CSV) and process it asynchronously',
  })
  @ApiBody({ type: CreateImportDto })
  @ApiDataResponse(ImportResponseDto, 202, 'Accepted: the import is queued')
  @ApiErrorResponses(400, 413, 422)
  @RawBody(importBodyLimitOf)
  async create(@Tenant() tenant: WorkspaceTenant, @Req() req: Request): Promise<{ data: ImportView }> {
    // The body stays raw bytes (req.body, a Buffer: what the idempotency fingerprint hashes) and is
    // parsed as a stream, one contact or CSV row at a time (import-body.ts).
    const body: unknown = req.body;
    const bytes = Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body ?? null));
    const batch = await this.imports.createFromItems(tenant.workspaceId, importBodyItems(bytes), 'api');
    await this.queue.enqueueAfterCommit({ workspaceId: tenant.workspaceId, importId: batch.id });
    return { data: batch };
  }

  @Get('imports')
  @WorkspaceAuth('imports:read')
  @ApiOperation({ operationId: 'v1.imports.index', summary: 'Imports of the workspace, newest first' })
  @ApiCollectionResponse(ImportResponseDto)
  async index(
    @Tenant() tenant: WorkspaceTenant,
    @Query() query: PageQueryDto,
    @Req() req: Request,
  ): Promise<Collection<ImportView>> {
    return collection(await this.imports.list(tenant.workspaceId, query), toImportView, req);
  }

  @Get('imports/:import')
  @WorkspaceAuth('imports:read')
  @ApiOperation({ operationId: 'v1.imports.show', summary: 'One import with its live counters' })
  @ApiDataResponse(ImportResponseDto)
  @ApiErrorResponses(404)
  async show(
    @Tenant() tenant: WorkspaceTenant,
    @Param('import', IntIdPipe) id: number,
  ): Promise<{ data: ImportView }> {
    return { data: await this.imports.show(tenant.workspaceId, id) };
  }
}
