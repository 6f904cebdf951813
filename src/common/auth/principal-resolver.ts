import type { Principal } from './principal.js';

/**
 * What the bearer strategy needs from the module that owns API keys: a token resolved to its
 * principal, or null. The api-keys module provides it under PRINCIPAL_RESOLVER, so `common/` never
 * imports a domain module.
 */
export interface PrincipalResolver {
  resolve(token: string): Promise<Principal | null>;
}

export const PRINCIPAL_RESOLVER = Symbol('PRINCIPAL_RESOLVER');
