import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import {
  HealthCheckService,
  HealthIndicatorService,
  TypeOrmHealthIndicator,
  type HealthCheckResult,
  type HealthIndicatorResult,
} from '@nestjs/terminus';
import type { Response } from 'express';
import type { Redis } from 'ioredis';
import { Public } from '../../common/auth/auth.decorator.js';
import { REDIS } from '../../common/redis/redis.module.js';

/** Liveness and readiness (database + Redis), outside /api/v1. */
@ApiExcludeController()
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly db: TypeOrmHealthIndicator,
    private readonly indicators: HealthIndicatorService,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  @Get('live')
  live(): { status: string } {
    return { status: 'ok' };
  }

  @Get('ready')
  async ready(@Res() res: Response): Promise<void> {
    try {
      const result: HealthCheckResult = await this.health.check([
        () => this.db.pingCheck('database', { timeout: 2000 }),
        () => this.redisCheck(),
      ]);
      res.status(200).json(result);
    } catch (err) {
      const body = (err as { response?: unknown }).response ?? { status: 'error' };
      res.status(503).json(body);
    }
  }

  private async redisCheck(): Promise<HealthIndicatorResult> {
    const indicator = this.indicators.check('redis');
    try {
      const pong = await Promise.race([
        this.redis.ping(),
        new Promise<string>((_, fail) => setTimeout(() => fail(new Error('timeout')), 2000)),
      ]);
      if (pong !== 'PONG') throw new Error('unexpected reply');
      return indicator.up();
    } catch {
      return indicator.down();
    }
  }
}
