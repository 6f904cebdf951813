/**
 * The global guard chain, in CONTRACT §2 order: credential (401) → source IP (403) → tier (403) →
 * scope (403), then the per-key rate limit (429). Routes must declare their auth; undeclared routes
 * are refused (fail closed).
 */
import { Injectable, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { Response } from 'express';
import { ApiError } from '../http/api-error.js';
import type { ServiceRequest } from '../http/request-context.js';
import { RateLimitService } from '../rate-limit/rate-limit.service.js';
import { AUTH_METADATA, PUBLIC_METADATA, type AuthRequirement } from './auth.decorator.js';
import { ipAllowed } from './ip-rules.js';
import type { Principal } from './principal.js';

@Injectable()
export class ApiKeyGuard extends AuthGuard('bearer') {
  constructor(
    private readonly reflector: Reflector,
    private readonly rateLimits: RateLimitService,
  ) {
    super();
  }

  override async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const targets = [ctx.getHandler(), ctx.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_METADATA, targets)) return true;
    const requirement = this.reflector.getAllAndOverride<AuthRequirement>(AUTH_METADATA, targets);
    const req = ctx.switchToHttp().getRequest<ServiceRequest>();
    const header = req.headers.authorization;
    if (!header || !/^Bearer [^\s]+$/i.test(header)) {
      throw ApiError.unauthenticated('Send the API key as Authorization: Bearer <key>');
    }
    await super.canActivate(ctx);
    const principal = req.user as Principal;
    req.principal = principal;
    if (!ipAllowed(req.ip, principal.allowedIps))
      throw ApiError.forbidden('This key may not be used from this address');
    if (!requirement) throw ApiError.forbidden('This route is not available to API keys');
    if (requirement.tier && principal.tier !== requirement.tier) {
      throw ApiError.forbidden(`This route needs a ${requirement.tier} key`);
    }
    const missing = requirement.scopes.filter((s) => !principal.scopes.includes(s));
    if (missing.length) throw ApiError.forbidden(`This key lacks the scope ${missing.join(', ')}`);
    const outcome = await this.rateLimits.consume(principal.keyId, principal.rateLimit);
    const res = ctx.switchToHttp().getResponse<Response>();
    for (const [k, v] of Object.entries(outcome.headers)) res.setHeader(k, v);
    return true;
  }

  override handleRequest<T = Principal>(err: unknown, user: unknown): T {
    if (err instanceof ApiError) throw err;
    if (err || !user) throw ApiError.unauthenticated('The API key is unknown, malformed, expired or revoked');
    return user as T;
  }
}
