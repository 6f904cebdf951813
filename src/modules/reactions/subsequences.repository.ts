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

  /** The workspace's stored config (its reactions' settings: `out_of_office_hold_days`). */
  async workspaceConfig(
    workspaceId: WorkspaceId,
    manager: EntityManager,
  ): Promise<Record<string, unknown> | null> {
    const [row] = (await manager.query(`SELECT config FROM workspaces WHERE id = $1`, [
      workspaceId,
    ])) as Array<{
      config: Record<string, unknown> | null;
    }>;
    return row?.config ?? null;
  }

  /** What a reply's follow-up day needs: its body, arrival, the contact's zone, the campaign's schedule. */
  /** A `wrong_person` reply's text and writer, and its thread's contact's company and inbox. */
  async referralContext(
    workspaceId: WorkspaceId,
    messageId: number,
    manager: EntityManager,
  ): Promise<
    { body: string | null; from_address: string; company: string | null; inbox_id: string } | undefined
  > {
    const [row] = (await manager.query(
      `SELECT m.body, m.from_address, ct.company, t.inbox_id
       FROM messages m JOIN threads t ON t.workspace_id = m.workspace_id AND t.id = m.thread_id
       LEFT JOIN contacts ct ON ct.workspace_id = t.workspace_id AND ct.id = t.contact_id
       WHERE m.workspace_id = $1 AND m.id = $2`,
      [workspaceId, messageId],
    )) as Array<{ body: string | null; from_address: string; company: string | null; inbox_id: string }>;
    return row;
  }

  async followUpContext(
    workspaceId: WorkspaceId,
    messageId: number,
    manager: EntityManager,
  ): Promise<
    | {
        body: string | null;
        received_at: Date;
        timezone: string | null;
        schedule: { timezone: string; start_time: string } | null;
      }
    | undefined
  > {
    const [row] = (await manager.query(
      `SELECT m.body, m.received_at, ct.timezone, c.schedule
       FROM messages m JOIN threads t ON t.workspace_id = m.workspace_id AND t.id = m.thread_id
       LEFT JOIN contacts ct ON ct.workspace_id = t.workspace_id AND ct.id = t.contact_id
       LEFT JOIN campaigns c ON c.workspace_id = t.workspace_id AND c.id = t.campaign_id
       WHERE m.workspace_id = $1 AND m.id = $2`,
      [workspaceId, messageId],
    )) as Array<{
      body: string | null;
      received_at: Date;
      timezone: string | null;
      schedule: { timezone: string; start_time: string } | null;
    }>;
    return row;
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
