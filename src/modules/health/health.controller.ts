import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import type { Redis } from 'ioredis';
import { Public } from '../../common/auth/auth.decorator.js';
import { HealthRepository } from './health.repository.js';
import { REDIS } from '../../common/redis/redis.module.js';
import { Draining } from '../../common/lifecycle/draining.js';

/** How long one component may take to answer before it counts as down. */
const CHECK_TIMEOUT_MS = 2000;

type ComponentStatus = { status: 'up' | 'down' };

/** The readiness body: terminus's shape, each component only `up` or `down`. */
export interface ReadinessBody {
  status: 'ok' | 'error';
  info: Record<string, ComponentStatus>;
  error: Record<string, ComponentStatus>;
  details: Record<string, ComponentStatus>;
}

/** Resolves true when `check` succeeds within the timeout; false on any failure (never throws). */
async function probe(check: () => Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      check().then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), CHECK_TIMEOUT_MS);
      }),
    ]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Liveness and readiness (database + Redis), outside /api/v1. Readiness says which component is
 * `up` or `down` and nothing else: no driver error text, host or port, which would
 * tell an anonymous caller about the internal network. The reason is in the server's own log.
 */
@ApiExcludeController()
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthRepository,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly draining: Draining,
  ) {}

  @Get('live')
  live(): { status: string } {
    return { status: 'ok' };
  }

  /** 503 while the process shuts down, so a load balancer stops sending it requests first. */
  @Get('ready')
  async ready(@Res() res: Response): Promise<void> {
    if (this.draining.active) {
      const body: ReadinessBody = {
        status: 'error',
        info: {},
        error: { shutdown: { status: 'down' } },
        details: { shutdown: { status: 'down' } },
      };
      res.status(503).json(body);
      return;
    }
    const [database, redis] = await Promise.all([
      probe(() => this.health.pingAcrossWorkspaces()),
      probe(async () => {
        if ((await this.redis.ping()) !== 'PONG') throw new Error('unexpected reply');
      }),
    ]);
    const details: Record<string, ComponentStatus> = {
      database: { status: database ? 'up' : 'down' },
      redis: { status: redis ? 'up' : 'down' },
    };
    const pick = (want: 'up' | 'down'): Record<string, ComponentStatus> =>
      Object.fromEntries(Object.entries(details).filter(([, v]) => v.status === want));
    const ok = database && redis;
    const body: ReadinessBody = {
      status: ok ? 'ok' : 'error',
      info: pick('up'),
      error: pick('down'),
      details,
    };
    res.status(ok ? 200 : 503).json(body);
  }
}
