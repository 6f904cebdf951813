import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../../common/auth/auth.decorator.js';
import { ApiError } from '../../common/http/api-error.js';
import { MetricsService } from './metrics.service.js';

/** The 401 of /metrics: the error envelope, and the scheme to use. */
export const metricsUnauthorized = (): ApiError =>
  new ApiError(
    401,
    'authentication_failed',
    "A valid metrics token is required: send the server's METRICS_TOKEN as Authorization: Bearer <token> (or start the server with METRICS_PUBLIC=true)",
    undefined,
    {
      'WWW-Authenticate': 'Bearer realm="metrics"',
    },
  );

/**
 * GET /metrics (Prometheus text), outside /api/v1 and the API document like the health routes. Not an
 * API key route: when METRICS_TOKEN is set the scraper sends it as a bearer token.
 */
@ApiExcludeController()
@Public()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get()
  async scrape(@Req() req: Request, @Res() res: Response): Promise<void> {
    if (!this.metrics.authorized(req.headers.authorization)) throw metricsUnauthorized();
    const body = await this.metrics.render();
    res.status(200).setHeader('Content-Type', this.metrics.contentType);
    res.setHeader('Cache-Control', 'no-store');
    res.end(body);
  }
}
