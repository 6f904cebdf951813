import { Body, Controller, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Tenant, WorkspaceAuth } from '../../common/auth/auth.decorator.js';
import type { WorkspaceTenant } from '../../common/auth/principal.js';
import { ApiCollectionResponse, ApiDataResponse, ApiErrorResponses } from '../../common/http/envelope.dto.js';
import { IntIdPipe } from '../../common/http/id-params.js';
import { collection, type Collection } from '../../common/http/pagination.js';
import {
  CreateEnrollmentDto,
  EnrollmentResponseDto,
  ListEnrollmentsQueryDto,
  StopEnrollmentDto,
} from './dto/enrollment.dto.js';
import { EnrollmentsService } from './enrollments.service.js';
import { toEnrollmentView, type EnrollmentView } from './enrollment.view.js';

@ApiTags('enrollments')
@Controller()
export class EnrollmentsController {
  constructor(private readonly enrollments: EnrollmentsService) {}

  @Post('campaigns/:campaign/enrollments')
  @HttpCode(201)
  @WorkspaceAuth('enrollments:write')
  @ApiOperation({
    operationId: 'v1.campaigns.enrollments.store',
    summary: 'Enroll a sendable contact in an active campaign',
  })
  @ApiDataResponse(EnrollmentResponseDto, 201, 'Created')
  @ApiErrorResponses(400, 404, 422)
  async store(
    @Tenant() t: WorkspaceTenant,
    @Param('campaign', IntIdPipe) campaignId: number,
    @Body() body: CreateEnrollmentDto,
  ) {
    return { data: await this.enrollments.create(t.workspaceId, campaignId, body.contact_id) };
  }

  @Get('enrollments')
  @WorkspaceAuth('enrollments:read')
  @ApiOperation({ operationId: 'v1.enrollments.index', summary: 'Enrollments, newest first, with filters' })
  @ApiCollectionResponse(EnrollmentResponseDto)
  @ApiErrorResponses(422)
  async index(
    @Tenant() t: WorkspaceTenant,
    @Query() query: ListEnrollmentsQueryDto,
    @Req() req: Request,
  ): Promise<Collection<EnrollmentView>> {
    return collection(await this.enrollments.list(t.workspaceId, query), toEnrollmentView, req);
  }

  @Get('enrollments/:enrollment')
  @WorkspaceAuth('enrollments:read')
  @ApiOperation({ operationId: 'v1.enrollments.show', summary: 'One enrollment' })
  @ApiDataResponse(EnrollmentResponseDto)
  @ApiErrorResponses(404)
  async show(@Tenant() t: WorkspaceTenant, @Param('enrollment', IntIdPipe) id: number) {
    return { data: await this.enrollments.show(t.workspaceId, id) };
  }

  @Post('enrollments/:enrollment/pause')
  @HttpCode(200)
  @WorkspaceAuth('enrollments:write')
  @ApiOperation({ operationId: 'v1.enrollments.pause', summary: 'Pause an active enrollment' })
  @ApiDataResponse(EnrollmentResponseDto)
  @ApiErrorResponses(404, 409)
  async pause(@Tenant() t: WorkspaceTenant, @Param('enrollment', IntIdPipe) id: number) {
    return { data: await this.enrollments.pause(t.workspaceId, id) };
  }

  @Post('enrollments/:enrollment/resume')
  @HttpCode(200)
  @WorkspaceAuth('enrollments:write')
  @ApiOperation({ operationId: 'v1.enrollments.resume', summary: 'Resume a paused enrollment' })
  @ApiDataResponse(EnrollmentResponseDto)
  @ApiErrorResponses(404, 409)
  async resume(@Tenant() t: WorkspaceTenant, @Param('enrollment', IntIdPipe) id: number) {
    return { data: await this.enrollments.resume(t.workspaceId, id) };
  }

  @Post('enrollments/:enrollment/stop')
  @HttpCode(200)
  @WorkspaceAuth('enrollments:write')
  @ApiOperation({
    operationId: 'v1.enrollments.stop',
    summary: 'Stop an active or paused enrollment for good (stop_reason manual)',
  })
  @ApiDataResponse(EnrollmentResponseDto)
  @ApiErrorResponses(404, 409, 422)
  async stop(
    @Tenant() t: WorkspaceTenant,
    @Param('enrollment', IntIdPipe) id: number,
    @Body() body: StopEnrollmentDto,
  ) {
    return { data: await this.enrollments.stop(t.workspaceId, id, body) };
  }
}
