import { Body, Controller, Get, Param, Patch, Query, Req } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Tenant, WorkspaceAuth } from '../../common/auth/auth.decorator.js';
import type { WorkspaceTenant } from '../../common/auth/principal.js';
import { ApiCollectionResponse, ApiDataResponse, ApiErrorResponses } from '../../common/http/envelope.dto.js';
import { UuidPipe } from '../../common/http/id-params.js';
import { collection, PageQueryDto, type Collection } from '../../common/http/pagination.js';
import { HealthQueryDto, InboxHealthResponseDto, InboxResponseDto, UpdateInboxDto } from './dto/inbox.dto.js';
import { InboxHealthService } from './health/inbox-health.service.js';
import { InboxesService } from './inboxes.service.js';
import { toInboxView, type InboxView } from './inbox.view.js';

@ApiTags('inboxes')
@Controller('inboxes')
export class InboxesController {
  constructor(
    private readonly inboxes: InboxesService,
    private readonly health: InboxHealthService,
  ) {}

  @Get()
  @WorkspaceAuth('inboxes:read')
  @ApiOperation({ operationId: 'v1.inboxes.index', summary: 'Connected inboxes (credential-free metadata)' })
  @ApiCollectionResponse(InboxResponseDto)
  async index(
    @Tenant() t: WorkspaceTenant,
    @Query() query: PageQueryDto,
    @Req() req: Request,
  ): Promise<Collection<InboxView>> {
    return collection(await this.inboxes.list(t.workspaceId, query), (i) => toInboxView(i), req);
  }

  @Get(':inbox')
  @WorkspaceAuth('inboxes:read')
  @ApiOperation({ operationId: 'v1.inboxes.show', summary: 'One inbox (credential-free metadata)' })
  @ApiDataResponse(InboxResponseDto)
  @ApiErrorResponses(404)
  async show(@Tenant() t: WorkspaceTenant, @Param('inbox', UuidPipe) id: string) {
    return { data: await this.inboxes.show(t.workspaceId, id) };
  }

  @Get(':inbox/health')
  @WorkspaceAuth('inboxes:read')
  @ApiOperation({
    operationId: 'v1.inboxes.health',
    summary:
      "The sending domain's MX, SPF, DKIM, DMARC (and PTR) against the bulk-sender rules; cached an hour",
  })
  @ApiDataResponse(InboxHealthResponseDto)
  @ApiErrorResponses(404, 422)
  async domainHealth(
    @Tenant() t: WorkspaceTenant,
    @Param('inbox', UuidPipe) id: string,
    @Query() query: HealthQueryDto,
  ) {
    return { data: await this.health.health(t.workspaceId, id, query.refresh === 'true') };
  }

  @Patch(':inbox')
  @WorkspaceAuth('inboxes:write')
  @ApiHeader({ name: 'Idempotency-Key', required: false, description: 'Safe retries (24 h)' })
  @ApiOperation({
    operationId: 'v1.inboxes.update',
    summary: 'Change the display name or daily limit, pause or resume, set or remove a ramp-up',
  })
  @ApiDataResponse(InboxResponseDto)
  @ApiErrorResponses(400, 404, 409, 422)
  async update(
    @Tenant() t: WorkspaceTenant,
    @Param('inbox', UuidPipe) id: string,
    @Body() body: UpdateInboxDto,
  ) {
    return { data: await this.inboxes.update(t.workspaceId, id, body) };
  }
}
