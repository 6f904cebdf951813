/** Minting, listing, rotating and revoking API keys. The plaintext token leaves only in the mint/rotate answer. */
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { isValidCidr } from '../../common/auth/ip-rules.js';
import { PROVISIONING_SCOPES, WORKSPACE_SCOPES } from '../../common/auth/scopes.js';
import { displayPrefix, generateToken, hashToken, type KeyTier } from '../../common/auth/token.js';
import { ApiError } from '../../common/http/api-error.js';
import { isUuid } from '../../common/http/id-params.js';
import { asWorkspaceId } from '../../common/tenant/workspace-id.js';
import { appConfig } from '../../config/app-config.js';
import { ApiKeyAuthService } from './api-key-auth.service.js';
import { ApiKeysRepository } from './api-keys.repository.js';
import type { ApiKey } from './entities/api-key.entity.js';

export interface CreateKeyInput {
  tier: KeyTier;
  workspaceId?: string;
  organizationId?: string;
  scopes: string[];
  name?: string;
  expiresAt?: Date | null;
  allowedIps?: string[];
  rateLimit?: number | null;
  createdByKeyId?: number | null;
}

@Injectable()
export class ApiKeysService {
  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly auth: ApiKeyAuthService,
  ) {}

  validate(input: CreateKeyInput): void {
    const allowed: readonly string[] = input.tier === 'workspace' ? WORKSPACE_SCOPES : PROVISIONING_SCOPES;
    if (input.tier !== 'workspace' && input.tier !== 'provisioning') {
      throw ApiError.validation('tier', 'tier must be workspace or provisioning');
    }
    if (input.tier === 'workspace' && (!input.workspaceId || !isUuid(input.workspaceId))) {
      throw ApiError.validation('workspace', 'a workspace key needs a workspace UUID');
    }
    if (input.tier === 'provisioning' && (!input.organizationId || !isUuid(input.organizationId))) {
      throw ApiError.validation('org', 'a provisioning key needs an organization UUID');
    }
    if (input.scopes.length === 0) throw ApiError.validation('scopes', 'at least one scope is required');
    const unknown = input.scopes.filter((s) => !allowed.includes(s));
    if (unknown.length) {
      throw ApiError.validation(
        'scopes',
        `not ${input.tier} scopes: ${unknown.join(', ')} (allowed: ${allowed.join(', ')})`,
      );
    }
    const badIp = (input.allowedIps ?? []).find((c) => !isValidCidr(c));
    if (badIp) throw ApiError.validation('allowed_ips', `not an IP address or CIDR: ${badIp}`);
    if (input.expiresAt && Number.isNaN(input.expiresAt.getTime())) {
      throw ApiError.validation('expires_at', 'expires_at must be an ISO 8601 time');
    }
    if (
      input.rateLimit !== undefined &&
      input.rateLimit !== null &&
      (!Number.isInteger(input.rateLimit) || input.rateLimit < 1)
    ) {
      throw ApiError.validation('rate_limit', 'rate_limit must be a positive integer');
    }
    const name = input.name ?? '';
    if (name.length > 200) throw ApiError.validation('name', 'name must be at most 200 characters');
  }

  async create(input: CreateKeyInput, manager?: EntityManager): Promise<{ key: ApiKey; token: string }> {
    this.validate(input);
    if (input.tier === 'workspace') {
      if (!(await this.keys.workspaceExists(asWorkspaceId(input.workspaceId!), manager)))
        throw ApiError.notFound('Workspace');
    } else {
      if (!(await this.keys.organizationExists(input.organizationId!, manager))) {
        throw ApiError.notFound('Organization');
      }
    }
    const token = generateToken(input.tier);
    const key = await this.keys.insert(
      input.tier === 'workspace' ? asWorkspaceId(input.workspaceId!.toLowerCase()) : null,
      {
        tier: input.tier,
        name: input.name?.trim() || `${input.tier} key`,
        prefix: displayPrefix(token),
        tokenHash: hashToken(token, appConfig().apiKeyPepper),
        scopes: [...new Set(input.scopes)],
        expiresAt: input.expiresAt ?? null,
        allowedIps: input.allowedIps ?? [],
        organizationId: input.tier === 'provisioning' ? input.organizationId!.toLowerCase() : null,
        rateLimit: input.rateLimit ?? null,
        createdByKeyId: input.createdByKeyId ?? null,
      },
      manager,
    );
    return { key, token };
  }

  async list(filter: { workspaceId?: string; organizationId?: string }): Promise<ApiKey[]> {
    const id = filter.workspaceId ?? filter.organizationId ?? '';
    if (!isUuid(id)) throw ApiError.validation(filter.workspaceId ? 'workspace' : 'org', 'must be a UUID');
    // An unknown workspace or organization is not found (not an empty list that looks like "no keys").
    const exists = filter.workspaceId
      ? await this.keys.workspaceExists(asWorkspaceId(id.toLowerCase()))
      : await this.keys.organizationExists(id.toLowerCase());
    if (!exists) throw ApiError.notFound(filter.workspaceId ? 'Workspace' : 'Organization');
    return filter.workspaceId
      ? this.keys.listForWorkspace(asWorkspaceId(filter.workspaceId))
      : this.keys.listForOrganization(id);
  }

  /** A new secret for the same key id; the old secret stops working at once. */
  async rotate(id: number): Promise<{ key: ApiKey; token: string }> {
    const key = await this.keys.findByIdAcrossWorkspaces(id);
    if (!key) throw ApiError.notFound('API key');
    if (key.revokedAt) throw ApiError.conflict('A revoked key cannot be rotated');
    const token = generateToken(key.tier);
    key.tokenHash = hashToken(token, appConfig().apiKeyPepper);
    key.prefix = displayPrefix(token);
    const saved = await this.keys.saveAcrossWorkspaces(key);
    this.auth.forgetKey(id);
    return { key: saved, token };
  }

  async revoke(id: number): Promise<ApiKey> {
    const key = await this.keys.findByIdAcrossWorkspaces(id);
    if (!key) throw ApiError.notFound('API key');
    if (!key.revokedAt) {
      key.revokedAt = new Date();
      await this.keys.saveAcrossWorkspaces(key);
    }
    this.auth.forgetKey(id);
    return key;
  }
}
