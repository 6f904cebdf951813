/**
 * Taking one send's capacity: the campaign's daily cap, the inbox's pacing slot (gap + jitter), its
 * daily limit and its sending domain's daily limit. With pacing each is a conditional write in the
 * recording transaction (`reserve`); without it slots come from the tick's blocks (`takeFromBank`).
 */
import type { EntityManager } from 'typeorm';
import type { Inbox } from '../../inboxes/entities/inbox.entity.js';
import type { WorkspaceConfig } from '../../workspaces/workspace-config.js';
import type { CapacityBank } from './capacity-bank.js';
import type { CapacityRepository } from './capacity.repository.js';
import type { Claimed } from './engine.types.js';

/**
 * 'campaign': the campaign's cap is reached today (no inbox can help); a Date: the inbox's next
 * pacing slot; false: the inbox or its domain is full today.
 */
export type Verdict = true | 'campaign' | Date | false;

/**
 * Reserves one send through `inbox`, each cap a conditional write that only succeeds below it. The
 * caller rolls back to a savepoint taken before on anything but `true`.
 */
export async function reserve(
  capacity: CapacityRepository,
  m: EntityManager,
  enrollment: Claimed,
  campaignLimit: number | null,
  inbox: Inbox,
  config: WorkspaceConfig,
  gapSeconds: number,
): Promise<Verdict> {
  const ws = enrollment.workspaceId;
  if (campaignLimit !== null && campaignLimit !== undefined) {
    if (!(await capacity.bumpCounter(ws, 'campaign', String(enrollment.campaignId), campaignLimit, m))) {
      return 'campaign';
    }
  }
  if (gapSeconds > 0) {
    const busyUntil = await capacity.takePacingSlot(ws, inbox.id, gapSeconds * (1 + Math.random() * 0.5), m);
    if (busyUntil) return busyUntil;
  }
  return capacity.takeInboxAndDomain(
    ws,
    inbox.id,
    inbox.domain.toLowerCase(),
    config.domain_daily_send_limit,
    m,
  );
}

/** As `reserve`, from the tick's blocks (no pacing): the campaign's slot, then the inbox's and its domain's. */
export async function takeFromBank(
  bank: CapacityBank,
  enrollment: Claimed,
  campaignLimit: number | null,
  inbox: Inbox,
  config: WorkspaceConfig,
): Promise<true | 'campaign' | false> {
  const ws = enrollment.workspaceId;
  const capped = campaignLimit !== null && campaignLimit !== undefined;
  if (capped && !(await bank.takeCampaign(ws, enrollment.campaignId, campaignLimit))) return 'campaign';
  if (await bank.takeInbox(ws, inbox.id, inbox.domain.toLowerCase(), config.domain_daily_send_limit))
    return true;
  if (capped) bank.giveBackCampaign(enrollment.campaignId);
  return false;
}

/** Puts back the slots `takeFromBank` took for a send that will not happen. */
export function giveBack(
  bank: CapacityBank,
  enrollment: Claimed,
  campaignLimit: number | null,
  inbox: Inbox,
): void {
  if (campaignLimit !== null && campaignLimit !== undefined) bank.giveBackCampaign(enrollment.campaignId);
  bank.giveBackInbox(inbox.id);
}
