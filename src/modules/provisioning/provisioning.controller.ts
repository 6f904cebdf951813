import { Body, Controller, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { OrgTenant, ProvisioningAuth } from '../../common/auth/auth.decorator.js';
import type { OrganizationTenant } from '../../common/auth/principal.js';
import { ApiCollectionResponse, ApiDataResponse, ApiErrorResponses } from '../../common/http/envelope.dto.js';
import { UuidPipe } from '../../common/http/id-params.js';
import { collection, PageQueryDto, type Collection } from '../../common/http/pagination.js';
import type { WorkspaceView } from '../workspaces/workspace.view.js';
import {
  CreateWorkspaceDto,
  ProvisionedWorkspaceDto,
  SeedResultDto,
  SeedWorkspaceDto,
  WorkspaceResponseDto,
} from './dto/provisioning.dto.js';
import { ProvisioningService } from './provisioning.service.js';

@ApiTags('provisioning')
@Controller('provisioning/workspaces')
export class ProvisioningController {
  constructor(private readonly provisioning: ProvisioningService) {}

  @Post()
  @HttpCode(201)
  @ProvisioningAuth('workspaces:create')
  @ApiOperation({
    operationId: 'v1.provisioning.workspaces.store',
    summary: 'Create a workspace in the key’s organization and mint its first workspace key (shown once)',
  })
  @ApiDataResponse(ProvisionedWorkspaceDto, 201, 'Created')
  @ApiErrorResponses(400, 422)
  async create(@OrgTenant() org: OrganizationTenant, @Body() body: CreateWorkspaceDto) {
    return { data: await this.provisioning.create(org, body) };
  }

  @Post(':workspace_uuid/seed')
  @HttpCode(200)
  @ProvisioningAuth('workspaces:configure')
  @ApiOperation({
    operationId: 'v1.provisioning.workspaces.seed',
    summary: 'Merge config into a workspace (re-runnable)',
  })
  @ApiDataResponse(SeedResultDto)
  @ApiErrorResponses(404, 422)
  async seed(
    @OrgTenant() org: OrganizationTenant,
    @Param('workspace_uuid', UuidPipe) id: string,
    @Body() body: SeedWorkspaceDto,
  ) {
    return { data: { workspace: await this.provisioning.seed(org, id, body.config) } };
  }

  @Get()
  @ProvisioningAuth('workspaces:configure')
  @ApiOperation({
    operationId: 'v1.provisioning.workspaces.index',
    summary: 'Workspaces of the key’s organization',
  })
  @ApiCollectionResponse(WorkspaceResponseDto)
  async index(
    @OrgTenant() org: OrganizationTenant,
    @Query() query: PageQueryDto,
    @Req() req: Request,
  ): Promise<Collection<WorkspaceView>> {
    const page = await this.provisioning.list(org, query);
    return collection(page.page, page.map, req);
  }

  @Get(':workspace_uuid')
  @ProvisioningAuth('workspaces:configure')
  @ApiOperation({
    operationId: 'v1.provisioning.workspaces.show',
    summary: 'One workspace of the key’s organization',
  })
  @ApiDataResponse(WorkspaceResponseDto)
  @ApiErrorResponses(404)
  async show(@OrgTenant() org: OrganizationTenant, @Param('workspace_uuid', UuidPipe) id: string) {
    return { data: await this.provisioning.show(org, id) };
  }
}
