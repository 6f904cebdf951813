import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Tenant, WorkspaceAuth } from '../../common/auth/auth.decorator.js';
import type { WorkspaceTenant } from '../../common/auth/principal.js';
import { ApiCollectionResponse, ApiDataResponse, ApiErrorResponses } from '../../common/http/envelope.dto.js';
import { IntIdPipe } from '../../common/http/id-params.js';
import { collection, PageQueryDto, type Collection } from '../../common/http/pagination.js';
import { CreateSequenceDto, SequenceResponseDto, UpdateSequenceDto } from './dto/sequence.dto.js';
import { SequencesService } from './sequences.service.js';
import { toSequenceView, type SequenceView } from './sequence.view.js';

@ApiTags('sequences')
@Controller('sequences')
export class SequencesController {
  constructor(private readonly sequences: SequencesService) {}

  @Get()
  @WorkspaceAuth('sequences:read')
  @ApiOperation({ operationId: 'v1.sequences.index', summary: 'Sequences, newest first' })
  @ApiCollectionResponse(SequenceResponseDto)
  async index(
    @Tenant() t: WorkspaceTenant,
    @Query() query: PageQueryDto,
    @Req() req: Request,
  ): Promise<Collection<SequenceView>> {
    return collection(await this.sequences.list(t.workspaceId, query), toSequenceView, req);
  }

  @Post()
  @HttpCode(201)
  @WorkspaceAuth('sequences:write')
  @ApiOperation({
    operationId: 'v1.sequences.store',
    summary: 'Create a draft sequence; templates are validated now',
  })
  @ApiDataResponse(SequenceResponseDto, 201, 'Created')
  @ApiErrorResponses(400, 422)
  async store(@Tenant() t: WorkspaceTenant, @Body() body: CreateSequenceDto) {
    return { data: await this.sequences.create(t.workspaceId, body) };
  }

  @Get(':sequence')
  @WorkspaceAuth('sequences:read')
  @ApiOperation({ operationId: 'v1.sequences.show', summary: 'One sequence' })
  @ApiDataResponse(SequenceResponseDto)
  @ApiErrorResponses(404)
  async show(@Tenant() t: WorkspaceTenant, @Param('sequence', IntIdPipe) id: number) {
    return { data: await this.sequences.show(t.workspaceId, id) };
  }

  @Patch(':sequence')
  @WorkspaceAuth('sequences:write')
  @ApiOperation({
    operationId: 'v1.sequences.update',
    summary: 'Rename, replace the steps (draft only) or archive a sequence',
  })
  @ApiDataResponse(SequenceResponseDto)
  @ApiErrorResponses(400, 404, 409, 422)
  async update(
    @Tenant() t: WorkspaceTenant,
    @Param('sequence', IntIdPipe) id: number,
    @Body() body: UpdateSequenceDto,
  ) {
    return { data: await this.sequences.update(t.workspaceId, id, body) };
  }

  @Post(':sequence/publish')
  @HttpCode(200)
  @WorkspaceAuth('sequences:write')
  @ApiOperation({
    operationId: 'v1.sequences.publish',
    summary: 'Publish a draft sequence (needs at least one step); its steps are then frozen',
  })
  @ApiDataResponse(SequenceResponseDto)
  @ApiErrorResponses(404, 409, 422)
  async publish(@Tenant() t: WorkspaceTenant, @Param('sequence', IntIdPipe) id: number) {
    return { data: await this.sequences.publish(t.workspaceId, id) };
  }
}
