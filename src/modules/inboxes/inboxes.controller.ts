import { Controller, Get, Param, Query, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Tenant, WorkspaceAuth } from '../../common/auth/auth.decorator.js';
import type { WorkspaceTenant } from '../../common/auth/principal.js';
import { ApiCollectionResponse, ApiDataResponse, ApiErrorResponses } from '../../common/http/envelope.dto.js';
import { UuidPipe } from '../../common/http/id-params.js';
import { collection, PageQueryDto, type Collection } from '../../common/http/pagination.js';
import { InboxResponseDto } from './dto/inbox.dto.js';
import { InboxesService } from './inboxes.service.js';
import { toInboxView, type InboxView } from './inbox.view.js';

@ApiTags('inboxes')
@Controller('inboxes')
export class InboxesController {
  constructor(private readonly inboxes: InboxesService) {}

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
}
