import { Body, Controller, Get, Post, Query, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Tenant, WorkspaceAuth } from '../../common/auth/auth.decorator.js';
import type { WorkspaceTenant } from '../../common/auth/principal.js';
import { ApiCollectionResponse, ApiDataResponse, ApiErrorResponses } from '../../common/http/envelope.dto.js';
import { collection, type Collection } from '../../common/http/pagination.js';
import {
  CreateSuppressionDto,
  ListSuppressionsQueryDto,
  SuppressionResponseDto,
} from './dto/suppression.dto.js';
import { toSuppressionView, type SuppressionView } from './suppression.view.js';
import { SuppressionsService } from './suppressions.service.js';

@ApiTags('suppressions')
@Controller('suppressions')
export class SuppressionsController {
  constructor(private readonly suppressions: SuppressionsService) {}

  @Get()
  @WorkspaceAuth('contacts:read')
  @ApiOperation({ operationId: 'v1.suppressions.index', summary: 'Suppressed addresses and domains' })
  @ApiCollectionResponse(SuppressionResponseDto)
  @ApiErrorResponses(422)
  async index(
    @Tenant() tenant: WorkspaceTenant,
    @Query() query: ListSuppressionsQueryDto,
    @Req() req: Request,
  ): Promise<Collection<SuppressionView>> {
    return collection(await this.suppressions.list(tenant.workspaceId, query), toSuppressionView, req);
  }

  @Post()
  @WorkspaceAuth('contacts:write')
  @ApiOperation({
    operationId: 'v1.suppressions.store',
    summary: 'Suppress an address or a whole domain (reason manual); it can never be removed',
    description:
      'Exactly one of email or domain. 201 when the entry was added; 200 with the existing entry ' +
      '(unchanged, whatever its reason) when the address or domain was already on the list.',
  })
  @ApiDataResponse(SuppressionResponseDto, 201, 'Added')
  @ApiDataResponse(SuppressionResponseDto, 200, 'Already on the list')
  @ApiErrorResponses(400, 422)
  async store(
    @Tenant() tenant: WorkspaceTenant,
    @Body() body: CreateSuppressionDto,
    @Res({ passthrough: true }) res: Response,
  ) {
    const { entry, created } = await this.suppressions.add(tenant.workspaceId, body);
    res.status(created ? 201 : 200);
    return { data: entry };
  }
}
