import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AnyKeyAuth, CurrentPrincipal } from '../../common/auth/auth.decorator.js';
import type { Principal } from '../../common/auth/principal.js';
import { ApiDataResponse } from '../../common/http/envelope.dto.js';
import { WINDOW_SECONDS } from '../../common/rate-limit/rate-limit.service.js';
import { MeResponseDto } from './dto/me-response.dto.js';

@ApiTags('me')
@Controller('me')
export class MeController {
  @Get()
  @AnyKeyAuth()
  @ApiOperation({ operationId: 'v1.me', summary: 'The calling key: tier, scopes, tenant and rate limit' })
  @ApiDataResponse(MeResponseDto)
  me(@CurrentPrincipal() p: Principal): { data: MeResponseDto } {
    return {
      data: {
        tier: p.tier,
        name: p.name,
        prefix: p.prefix,
        scopes: p.scopes,
        workspace_id: p.workspaceId,
        organization_id: p.organizationId,
        rate_limit: { limit: p.rateLimit, window_seconds: WINDOW_SECONDS },
        expires_at: p.expiresAt ? p.expiresAt.toISOString() : null,
        allowed_ips: p.allowedIps,
      },
    };
  }
}
