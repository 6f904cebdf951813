import { Module } from '@nestjs/common';
import { MetricsController } from './metrics.controller.js';
import { MetricsRepository } from './metrics.repository.js';
import { MetricsServer } from './metrics-server.js';
import { MetricsService } from './metrics.service.js';

/** GET /metrics on the API, and the METRICS_PORT listener of processes that ask for one. */
@Module({
  controllers: [MetricsController],
  providers: [MetricsRepository, MetricsService, MetricsServer],
  exports: [MetricsService],
})
export class MetricsModule {}
