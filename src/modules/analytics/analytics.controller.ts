import { Controller, Get, Query, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Tenant, WorkspaceAuth } from '../../common/auth/auth.decorator.js';
import type { WorkspaceTenant } from '../../common/auth/principal.js';
import { ApiCollectionResponse, ApiErrorResponses } from '../../common/http/envelope.dto.js';
import { collection, type Collection } from '../../common/http/pagination.js';
import { AnalyticsService, toDailyMetricView } from './analytics.service.js';
import { StepMetricResponseDto, StepMetricsQueryDto, type StepMetricView } from './dto/step-metrics.dto.js';
import {
  DailyMetricResponseDto,
  DailyMetricsQueryDto,
  type DailyMetricView,
} from './dto/daily-metrics.dto.js';

@ApiTags('analytics')
@Controller('analytics')
export class AnalyticsController {
  constructor(private readonly analytics: AnalyticsService) {}

  @Get('daily')
  @WorkspaceAuth('analytics:read')
  @ApiOperation({
    operationId: 'v1.analytics.daily',
    summary: 'Daily counters per campaign (UTC days; only days with activity have a row)',
  })
  @ApiCollectionResponse(DailyMetricResponseDto)
  @ApiErrorResponses(422)
  async daily(
    @Tenant() tenant: WorkspaceTenant,
    @Query() query: DailyMetricsQueryDto,
    @Req() req: Request,
  ): Promise<Collection<DailyMetricView>> {
    return collection(await this.analytics.daily(tenant.workspaceId, query), toDailyMetricView, req);
  }

  @Get('steps')
  @WorkspaceAuth('analytics:read')
  @ApiOperation({
    operationId: 'v1.analytics.steps',
    summary:
      'Counters of one campaign per sequence step and A/B variant over UTC days (sent, replied, bounced, unsubscribed); all rows in one page',
    description:
      'A reply or an unsubscribe counts for the variant of the last message sent in its thread; a hard bounce for the message that bounced. The rows add up to the campaign totals of `GET /analytics/daily` over the same days.',
  })
  @ApiCollectionResponse(StepMetricResponseDto)
  @ApiErrorResponses(422)
  async steps(
    @Tenant() tenant: WorkspaceTenant,
    @Query() query: StepMetricsQueryDto,
    @Req() req: Request,
  ): Promise<Collection<StepMetricView>> {
    return collection(await this.analytics.steps(tenant.workspaceId, query), (r) => r, req);
  }
}
