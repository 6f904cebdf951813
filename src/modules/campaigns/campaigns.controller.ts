import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Tenant, WorkspaceAuth } from '../../common/auth/auth.decorator.js';
import type { WorkspaceTenant } from '../../common/auth/principal.js';
import { ApiCollectionResponse, ApiDataResponse, ApiErrorResponses } from '../../common/http/envelope.dto.js';
import { IntIdPipe } from '../../common/http/id-params.js';
import { collection, PageQueryDto, type Collection } from '../../common/http/pagination.js';
import { CampaignsService } from './campaigns.service.js';
import { toCampaignView, type CampaignView } from './campaign.view.js';
import { CampaignResponseDto, CreateCampaignDto, UpdateCampaignDto } from './dto/campaign.dto.js';

@ApiTags('campaigns')
@Controller('campaigns')
export class CampaignsController {
  constructor(private readonly campaigns: CampaignsService) {}

  @Get()
  @WorkspaceAuth('campaigns:read')
  @ApiOperation({ operationId: 'v1.campaigns.index', summary: 'Campaigns, newest first' })
  @ApiCollectionResponse(CampaignResponseDto)
  async index(
    @Tenant() t: WorkspaceTenant,
    @Query() query: PageQueryDto,
    @Req() req: Request,
  ): Promise<Collection<CampaignView>> {
    return collection(await this.campaigns.list(t.workspaceId, query), toCampaignView, req);
  }

  @Post()
  @HttpCode(201)
  @WorkspaceAuth('campaigns:write')
  @ApiOperation({ operationId: 'v1.campaigns.store', summary: 'Create a draft campaign' })
  @ApiDataResponse(CampaignResponseDto, 201, 'Created')
  @ApiErrorResponses(400, 422)
  async store(@Tenant() t: WorkspaceTenant, @Body() body: CreateCampaignDto) {
    return { data: await this.campaigns.create(t.workspaceId, body) };
  }

  @Get(':campaign')
  @WorkspaceAuth('campaigns:read')
  @ApiOperation({ operationId: 'v1.campaigns.show', summary: 'One campaign' })
  @ApiDataResponse(CampaignResponseDto)
  @ApiErrorResponses(404)
  async show(@Tenant() t: WorkspaceTenant, @Param('campaign', IntIdPipe) id: number) {
    return { data: await this.campaigns.show(t.workspaceId, id) };
  }

  @Patch(':campaign')
  @WorkspaceAuth('campaigns:write')
  @ApiOperation({
    operationId: 'v1.campaigns.update',
    summary: 'Change a campaign; `status` moves it (draft → active ↔ paused; active|paused → archived)',
  })
  @ApiDataResponse(CampaignResponseDto)
  @ApiErrorResponses(400, 404, 409, 422)
  async update(
    @Tenant() t: WorkspaceTenant,
    @Param('campaign', IntIdPipe) id: number,
    @Body() body: UpdateCampaignDto,
  ) {
    return { data: await this.campaigns.update(t.workspaceId, id, body) };
  }
}
