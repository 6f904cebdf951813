import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AnalyticsController } from './analytics.controller.js';
import {
  DailyMetricCountersRepository,
  DailyMetricsRepository,
  StepMetricCountersRepository,
} from './analytics.repository.js';
import { AnalyticsService } from './analytics.service.js';
import { DailyMetric } from './entities/daily-metric.entity.js';
import { StepMetric } from './entities/step-metric.entity.js';
import { MetricCounters } from './metrics.js';

/** `GET /analytics/daily`. Counters are written through `MetricCounters` (metrics.ts) by the modules that count. */
@Module({
  imports: [TypeOrmModule.forFeature([DailyMetric, StepMetric])],
  controllers: [AnalyticsController],
  providers: [
    AnalyticsService,
    DailyMetricsRepository,
    DailyMetricCountersRepository,
    StepMetricCountersRepository,
    MetricCounters,
  ],
  exports: [MetricCounters],
})
export class AnalyticsModule {}
