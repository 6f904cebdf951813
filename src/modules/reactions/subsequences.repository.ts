import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import { TenantRepository } from '../../common/tenant/tenant.repository.js';
import type { WorkspaceId } from '../../common/tenant/workspace-id.js';
import { Subsequence } from './entities/subsequence.entity.js';

@Injectable()
export class SubsequencesRepository extends TenantRepository<Subsequence> {
  constructor(@InjectRepository(Subsequence) repo: Repository<Subsequence>) {
    super(repo);
  }

  /** The campaign's subsequences in evaluation order (position, then id). */
  ofCampaign(workspaceId: WorkspaceId, campaignId: number, manager?: EntityManager): Promise<Subsequence[]> {
    return this.scope(workspaceId, manager).find({ campaignId }, { position: 'ASC', id: 'ASC' });
  }

  /** Stores a subsequence's changed fields. */
  async saveChanges(
    workspaceId: WorkspaceId,
    id: number,
    fields: Partial<Subsequence>,
    manager: EntityManager,
  ): Promise<void> {
    await this.scope(workspaceId, manager).update({ id }, { ...fields, updatedAt: new Date() });
  }

  /** Deletes one; whether it existed. */
  async remove(
    workspaceId: WorkspaceId,
    campaignId: number,
    id: number,
    manager: EntityManager,
  ): Promise<boolean> {
    const result = await manager.delete(Subsequence, { workspaceId, campaignId, id });
    return (result.affected ?? 0) > 0;
  }
}
