/**
 * One decorator declares a route's auth (tier and scopes) and emits the matching OpenAPI security,
 * so what is documented is what is enforced.
 */
import { applyDecorators, createParamDecorator, SetMetadata, type ExecutionContext } from '@nestjs/common';
import { ApiResponse, ApiSecurity } from '@nestjs/swagger';
import { ApiError } from '../http/api-error.js';
import type { ServiceRequest } from '../http/request-context.js';
import type { OrganizationTenant, Principal, WorkspaceTenant } from './principal.js';
import type { ProvisioningScope, WorkspaceScope } from './scopes.js';
import type { KeyTier } from './token.js';
import { ErrorEnvelopeDto } from '../http/envelope.dto.js';

export const AUTH_METADATA = 'svc:auth';
export const PUBLIC_METADATA = 'svc:public';

export interface AuthRequirement {
  /** null: any valid key (GET /me). */
  tier: KeyTier | null;
  scopes: string[];
}

function authDecorators(requirement: AuthRequirement): MethodDecorator & ClassDecorator {
  const scopeText = requirement.scopes.length
    ? `Requires scope: ${requirement.scopes.join(', ')}.`
    : 'Any valid key.';
  return applyDecorators(
    SetMetadata(AUTH_METADATA, requirement),
    // The scopes in the security requirement: `bearer: [scope, ...]` (OpenAPI 3.1 allows scopes for
    // any scheme), so generators and gateways see what the route enforces.
    ApiSecurity('bearer', requirement.scopes),
    ApiResponse({
      status: 401,
      description: 'Missing, malformed, unknown, expired or revoked key',
      type: ErrorEnvelopeDto,
    }),
    ApiResponse({
      status: 403,
      description: `Wrong tier, missing scope or disallowed source IP. ${scopeText}`,
      type: ErrorEnvelopeDto,
    }),
    ApiResponse({ status: 429, description: 'Rate limit exceeded; see Retry-After', type: ErrorEnvelopeDto }),
    ApiResponse({
      status: 503,
      description: 'service_unavailable: the database is unreachable; retry after Retry-After seconds',
      type: ErrorEnvelopeDto,
    }),
  );
}

/** A workspace-key route needing every scope listed. */
export const WorkspaceAuth = (...scopes: WorkspaceScope[]): MethodDecorator & ClassDecorator =>
  authDecorators({ tier: 'workspace', scopes });

/** A provisioning-key route needing every scope listed. */
export const ProvisioningAuth = (...scopes: ProvisioningScope[]): MethodDecorator & ClassDecorator =>
  authDecorators({ tier: 'provisioning', scopes });

/** Any valid key, no scope. */
export const AnyKeyAuth = (): MethodDecorator & ClassDecorator => authDecorators({ tier: null, scopes: [] });

/** No API key: health checks, unsubscribe pages, inbound mail (which authenticates itself). */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(PUBLIC_METADATA, true);

function principalOf(ctx: ExecutionContext): Principal {
  const principal = ctx.switchToHttp().getRequest<ServiceRequest>().principal;
  if (!principal) throw ApiError.unauthenticated();
  return principal;
}

export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext) => principalOf(ctx));

/** The workspace fixed by the key. */
export const Tenant = createParamDecorator((_: unknown, ctx: ExecutionContext): WorkspaceTenant => {
  const p = principalOf(ctx);
  if (!p.workspaceId) throw ApiError.forbidden('This route needs a workspace key');
  return { workspaceId: p.workspaceId, organizationId: p.organizationId };
});

/** The organization fixed by a provisioning key. */
export const OrgTenant = createParamDecorator((_: unknown, ctx: ExecutionContext): OrganizationTenant => {
  const p = principalOf(ctx);
  return { organizationId: p.organizationId, keyId: p.keyId };
});
