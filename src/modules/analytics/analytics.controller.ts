import { Controller, Get, Query, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Tenant, WorkspaceAuth } from '../../common/auth/auth.decorator.js';
import type { WorkspaceTenant } from '../../common/auth/principal.js';
import { ApiCollectionResponse, ApiErrorResponses } from '../../common/http/envelope.dto.js';
import { collection, type Collection } from '../../common/http/pagination.js';
import { AnalyticsService, toDailyMetricView } from './analytics.service.js';
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
}
