import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Req } from '@nestjs/common';
import { ApiNoContentResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Tenant, WorkspaceAuth } from '../../common/auth/auth.decorator.js';
import type { WorkspaceTenant } from '../../common/auth/principal.js';
import { ApiCollectionResponse, ApiDataResponse, ApiErrorResponses } from '../../common/http/envelope.dto.js';
import { IntIdPipe } from '../../common/http/id-params.js';
import { collection, type Collection } from '../../common/http/pagination.js';
import { CreateSubsequenceDto, SubsequenceResponseDto, UpdateSubsequenceDto } from './dto/subsequence.dto.js';
import { MAX_SUBSEQUENCES, SubsequencesService } from './subsequences.service.js';
import { toSubsequenceView, type SubsequenceView } from './subsequence.view.js';

@ApiTags('campaigns')
@Controller('campaigns/:campaign/subsequences')
export class SubsequencesController {
  constructor(private readonly subsequences: SubsequencesService) {}

  @Get()
  @WorkspaceAuth('campaigns:read')
  @ApiOperation({
    operationId: 'v1.subsequences.index',
    summary: "The campaign's subsequences, in position order",
  })
  @ApiCollectionResponse(SubsequenceResponseDto)
  @ApiErrorResponses(404)
  async index(
    @Tenant() t: WorkspaceTenant,
    @Param('campaign', IntIdPipe) campaignId: number,
    @Req() req: Request,
  ): Promise<Collection<SubsequenceView>> {
    const items = await this.subsequences.list(t.workspaceId, campaignId);
    return collection(
      { items, nextCursor: null, prevCursor: null, perPage: MAX_SUBSEQUENCES },
      toSubsequenceView,
      req,
    );
  }

  @Post()
  @HttpCode(201)
  @WorkspaceAuth('campaigns:write')
  @ApiOperation({
    operationId: 'v1.subsequences.store',
    summary: 'Add a subsequence (at most 10 per campaign)',
  })
  @ApiDataResponse(SubsequenceResponseDto, 201, 'Created')
  @ApiErrorResponses(400, 404, 422)
  async store(
    @Tenant() t: WorkspaceTenant,
    @Param('campaign', IntIdPipe) campaignId: number,
    @Body() body: CreateSubsequenceDto,
  ) {
    return { data: await this.subsequences.create(t.workspaceId, campaignId, body) };
  }

  @Get(':subsequence')
  @WorkspaceAuth('campaigns:read')
  @ApiOperation({ operationId: 'v1.subsequences.show', summary: 'One subsequence' })
  @ApiDataResponse(SubsequenceResponseDto)
  @ApiErrorResponses(404)
  async show(
    @Tenant() t: WorkspaceTenant,
    @Param('campaign', IntIdPipe) campaignId: number,
    @Param('subsequence', IntIdPipe) id: number,
  ) {
    return { data: await this.subsequences.show(t.workspaceId, campaignId, id) };
  }

  @Patch(':subsequence')
  @WorkspaceAuth('campaigns:write')
  @ApiOperation({ operationId: 'v1.subsequences.update', summary: 'Change a subsequence' })
  @ApiDataResponse(SubsequenceResponseDto)
  @ApiErrorResponses(400, 404, 422)
  async update(
    @Tenant() t: WorkspaceTenant,
    @Param('campaign', IntIdPipe) campaignId: number,
    @Param('subsequence', IntIdPipe) id: number,
    @Body() body: UpdateSubsequenceDto,
  ) {
    return { data: await this.subsequences.update(t.workspaceId, campaignId, id, body) };
  }

  @Delete(':subsequence')
  @HttpCode(204)
  @WorkspaceAuth('campaigns:write')
  @ApiOperation({
    operationId: 'v1.subsequences.destroy',
    summary: 'Delete a subsequence (its unfinished enrollments stop `manual`)',
  })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrorResponses(404)
  async destroy(
    @Tenant() t: WorkspaceTenant,
    @Param('campaign', IntIdPipe) campaignId: number,
    @Param('subsequence', IntIdPipe) id: number,
  ): Promise<void> {
    await this.subsequences.remove(t.workspaceId, campaignId, id);
  }
}
