/**
 * API keys. A key is looked up by its token's hash before any tenant is known (authentication), and
 * the admin CLI (an operator) rotates and revokes keys by id: those methods span workspaces by name.
 * Everything else is scoped to the key's workspace or organization.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { pgPool } from '../../database/pg-pool.js';
import { ApiKey } from './entities/api-key.entity.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';

export interface KeyRow {
  id: number;
  tier: 'workspace' | 'provisioning';
  name: string;
  prefix: string;
  scopes: string[];
  expires_at: Date | null;
  allowed_ips: string[];
  workspace_id: string | null;
  org_id: string;
  rate_limit: number | null;
  org_rate_limit: number | null;
  revoked_at: Date | null;
}

/** The credential lookup of every request (also run by bench/me-baseline.mjs, the benchmark's baseline). */
export const LOOKUP_SQL = `
  SELECT k.id, k.tier, k.name, k.prefix, k.scopes, k.expires_at, k.allowed_ips, k.workspace_id,
         o.id AS org_id, k.rate_limit, o.rate_limit AS org_rate_limit, k.revoked_at
    FROM api_keys k
    LEFT JOIN workspaces w ON w.id = k.workspace_id
    JOIN organizations o ON o.id = COALESCE(k.organization_id, w.organization_id)
   WHERE k.token_hash = $1`;

@Injectable()
export class ApiKeysRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  private repo(manager?: EntityManager) {
    return (manager ?? this.db.manager).getRepository(ApiKey);
  }

  /** The hot path of authentication: the pg pool directly, one indexed query, no ORM query runner. */
  async findByTokenHashAcrossWorkspaces(tokenHash: string): Promise<KeyRow | undefined> {
    return (await pgPool(this.db).query<KeyRow>(LOOKUP_SQL, [tokenHash])).rows[0];
  }

  async markUsedAcrossWorkspaces(keyId: number): Promise<void> {
    await this.db.query('UPDATE api_keys SET last_used_at = now() WHERE id = $1', [keyId]);
  }

  async workspaceExists(workspaceId: WorkspaceId, manager?: EntityManager): Promise<boolean> {
    const found = (await (manager ?? this.db.manager).query('SELECT 1 FROM workspaces WHERE id = $1', [
      workspaceId,
    ])) as unknown[];
    return found.length > 0;
  }

  async organizationExists(organizationId: string, manager?: EntityManager): Promise<boolean> {
    const found = (await (manager ?? this.db.manager).query('SELECT 1 FROM organizations WHERE id = $1', [
      organizationId,
    ])) as unknown[];
    return found.length > 0;
  }

  /** A key of `workspaceId` (workspace tier) or of its organization (provisioning tier, workspaceId null). */
  insert(workspaceId: WorkspaceId | null, values: Partial<ApiKey>, manager?: EntityManager): Promise<ApiKey> {
    const repo = this.repo(manager);
    return repo.save(repo.create({ ...values, workspaceId }));
  }

  listForWorkspace(workspaceId: WorkspaceId): Promise<ApiKey[]> {
    return this.repo().find({ where: { workspaceId }, order: { createdAt: 'DESC', id: 'DESC' } });
  }

  listForOrganization(organizationId: string): Promise<ApiKey[]> {
    return this.repo().find({ where: { organizationId }, order: { createdAt: 'DESC', id: 'DESC' } });
  }

  /** For the admin CLI (`key:rotate`, `key:revoke --id`): an operator acts on any tenant's key. */
  findByIdAcrossWorkspaces(keyId: number): Promise<ApiKey | null> {
    return this.repo().findOne({ where: { id: keyId } });
  }

  saveAcrossWorkspaces(key: ApiKey): Promise<ApiKey> {
    return this.repo().save(key);
  }
}
