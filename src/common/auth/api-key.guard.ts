/**
 * The global guard chain, in this order: credential (401) → source IP (403) → tier (403) →
 * scope (403), then the per-key rate limit (429), and only then the request body (no
 * request is parsed before its credential is checked; request-body.ts). Routes must declare their
 * auth; undeclared routes are refused (fail closed).
 *
 * The credential goes through passport's registered `bearer` strategy (passport-http-bearer, see
 * bearer.strategy.ts), run with the strategy protocol passport itself uses: an object whose
 * prototype is the strategy, given `success`, `fail` and `error` actions. Not through
 * `passport.authenticate()`: that decorates every request with seven session helpers (`login`,
 * `logout`, `isAuthenticated`, `_sessionManager`, …) a stateless API never uses, which pushes
 * Express's request object onto slow property paths for the rest of the request
 * (docs/contacts.md, "Where the time goes").
 */
import { CanActivate, Injectable, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { Response } from 'express';
import { ApiError } from '../http/api-error.js';
import type { ServiceRequest } from '../http/request-context.js';
import { RAW_BODY_METADATA, readApiBody, type BodyLimit } from '../http/request-body.js';
import { RateLimitService } from '../rate-limit/rate-limit.service.js';
import { AUTH_METADATA, PUBLIC_METADATA, type AuthRequirement } from './auth.decorator.js';
import { ipAllowed } from './ip-rules.js';
import { BearerStrategy } from './bearer.strategy.js';
import type { Principal } from './principal.js';

const UNKNOWN_KEY = 'The API key is unknown, malformed, expired or revoked';

/**
 * Runs `strategy` as passport does on the request's headers alone, so the key is only ever taken
 * from the Authorization header (passport-http-bearer would also read `access_token` from the
 * query string or body, where keys end up in logs); resolves with the principal it accepts.
 */
function authenticate(strategy: BearerStrategy, headers: ServiceRequest['headers']): Promise<Principal> {
  return new Promise((resolve, reject) => {
    const action = Object.create(strategy) as BearerStrategy & {
      success(user: Principal): void;
      fail(): void;
      error(err: unknown): void;
    };
    action.success = (user) => (user ? resolve(user) : reject(ApiError.unauthenticated(UNKNOWN_KEY)));
    action.fail = () => reject(ApiError.unauthenticated(UNKNOWN_KEY));
    // A failure to look the key up (database unreachable) is not a verdict on the key: the error
    // goes to the exception mapping (503 service_unavailable for a connection failure), never 401.
    action.error = (err) => reject(err);
    action.authenticate({ headers } as ServiceRequest, { session: false });
  });
}

/** Why this key may not use a route with this requirement (tier, then scopes); null when it may. */
function refusalOf(requirement: AuthRequirement | undefined, principal: Principal): string | null {
  if (!requirement) return 'This route is not available to API keys';
  if (requirement.tier && principal.tier !== requirement.tier)
    return `This route needs a ${requirement.tier} key`;
  const missing = requirement.scopes.filter((s) => !principal.scopes.includes(s));
  return missing.length ? `This key lacks the scope ${missing.join(', ')}` : null;
}

@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly rateLimits: RateLimitService,
    private readonly bearer: BearerStrategy,
    @InjectDataSource() private readonly db: DataSource,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const targets = [ctx.getHandler(), ctx.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_METADATA, targets)) return true;
    const requirement = this.reflector.getAllAndOverride<AuthRequirement>(AUTH_METADATA, targets);
    const req = ctx.switchToHttp().getRequest<ServiceRequest>();
    const header = req.headers.authorization;
    if (!header || !/^Bearer [^\s]+$/i.test(header)) {
      throw ApiError.unauthenticated('Send the API key as Authorization: Bearer <key>');
    }
    const principal = await authenticate(this.bearer, req.headers);
    req.principal = principal;
    if (!ipAllowed(req.ip, principal.allowedIps))
      throw ApiError.forbidden('This key may not be used from this address');
    const res = ctx.switchToHttp().getResponse<Response>();
    const refusal = refusalOf(requirement, principal);
    if (refusal) {
      // Refused before the limiter: the answer carries the key's RateLimit headers (every keyed answer
      // does) but spends nothing of its budget.
      const state = await this.rateLimits.peek(principal.keyId, principal.rateLimit);
      for (const [k, v] of Object.entries(state.headers)) res.setHeader(k, v);
      throw ApiError.forbidden(refusal);
    }
    const outcome = await this.rateLimits.consume(principal.keyId, principal.rateLimit);
    for (const [k, v] of Object.entries(outcome.headers)) res.setHeader(k, v);
    await readApiBody(
      req,
      this.reflector.getAllAndOverride<BodyLimit | undefined>(RAW_BODY_METADATA, targets),
      this.db,
    );
    return true;
  }
}
