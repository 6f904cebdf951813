import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import { rows } from '../../../database/query-rows.js';
import { OAuthFlow } from '../entities/oauth-flow.entity.js';
import { asWorkspaceId, type WorkspaceId } from '../../../common/tenant/workspace-id.js';

/** OAuth connections begun and not finished (single use, 10 minutes). */
@Injectable()
export class OAuthFlowsRepository {
  constructor(@InjectRepository(OAuthFlow) private readonly repo: Repository<OAuthFlow>) {}

  async insert(
    workspaceId: WorkspaceId,
    flow: Omit<OAuthFlow, 'workspaceId' | 'createdAt'>,
    manager?: EntityManager,
  ): Promise<void> {
    await (manager?.getRepository(OAuthFlow) ?? this.repo).insert({ ...flow, workspaceId });
  }

  /**
   * Takes the flow of a state (deleting it: a state is good for one callback), whether or not it
   * expired; the caller refuses an expired one. Null when there is none (forged, reused, swept).
   */
  async takeByStateAcrossWorkspaces(stateHash: string): Promise<OAuthFlow | null> {
    const [row] = await rows<{
      state_hash: string;
      workspace_id: string;
      provider: string;
      code_verifier_sealed: string;
      return_url: string | null;
      expires_at: Date;
      created_at: Date;
    }>(this.repo.manager, 'DELETE FROM oauth_flows WHERE state_hash = $1 RETURNING *', [stateHash]);
    if (!row) return null;
    return {
      stateHash: row.state_hash,
      workspaceId: asWorkspaceId(row.workspace_id),
      provider: row.provider,
      codeVerifierSealed: row.code_verifier_sealed,
      returnUrl: row.return_url,
      expiresAt: new Date(row.expires_at),
      createdAt: new Date(row.created_at),
    };
  }

  /** Forgets flows that expired a day ago or more (never finished). */
  async sweepExpiredAcrossWorkspaces(): Promise<void> {
    await this.repo.manager.query(`DELETE FROM oauth_flows WHERE expires_at < now() - interval '1 day'`);
  }
}
