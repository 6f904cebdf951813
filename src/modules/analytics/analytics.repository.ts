import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { TenantRepository } from '../../common/tenant/tenant-repository.js';
import { DailyMetric } from './entities/daily-metric.entity.js';

@Injectable()
export class DailyMetricsRepository extends TenantRepository<DailyMetric> {
  constructor(@InjectRepository(DailyMetric) repo: Repository<DailyMetric>) {
    super(repo);
  }
}
