/**
 * Capacity reserved in blocks for one send tick (used when SEND_MIN_GAP_SECONDS is 0).
 *
 * The daily caps live on hot rows shared by every send of an inbox, a domain or a campaign
 * (`inboxes.sent_today`, `send_counters`). Writing them once per send serialises sends on those row
 * locks and their commits. A tick instead reserves a block of k slots in one short transaction
 * (k = the enrollments it still has to work), with the same conditions as a single reservation:
 * the block is cut to what is left below each cap, so the counters never pass a cap, with any number
 * of workers. The tick hands the slots out in memory and, at its end, gives the unused ones back.
 *
 * A crash between reservation and give-back loses the unused slots for the rest of the UTC day:
 * the caps then err on the side of sending less, never more. While one worker holds a block, another
 * worker finds less room than there really is (and defers to the next day); blocks are sized to the
 * worker's own due enrollments, so this only matters at the very end of a cap.
 */
import type { DataSource } from 'typeorm';
import type { InboxStateRepository } from '../../inboxes/inbox-state.repository.js';
import type { CapacityRepository } from './capacity.repository.js';
import type { WorkspaceId } from '../../../common/tenant/workspace-id.js';

interface Held {
  /** Slots reserved and not handed out yet. */
  n: number;
  /** The UTC day the slots were counted on (`YYYY-MM-DD`). */
  day: string | null;
  /** No room was left at the last reservation: stop asking for this tick. */
  exhausted: boolean;
  refilling?: Promise<void>;
  workspaceId: WorkspaceId;
  /** Campaign id (campaign slots) or the inbox's lower-cased domain (inbox slots). */
  key: string;
}

export class CapacityBank {
  private readonly campaigns = new Map<number, Held>();
  private readonly inboxes = new Map<string, Held>();

  constructor(
    private readonly ds: DataSource,
    private readonly capacity: CapacityRepository,
    private readonly inboxState: InboxStateRepository,
    /** How many slots a block should ask for (the tick's enrollments not finished yet). */
    private readonly want: () => number,
  ) {}

  /** True when this tick holds an unused slot for the inbox (its `sent_today` already counts it). */
  holdsInbox(inboxId: string): boolean {
    return (this.inboxes.get(inboxId)?.n ?? 0) > 0;
  }

  /** One slot of the campaign's daily cap; false when the cap is reached. */
  takeCampaign(workspaceId: WorkspaceId, campaignId: number, limit: number): Promise<boolean> {
    return this.take(this.campaigns, campaignId, workspaceId, String(campaignId), (h, k) =>
      this.reserveCampaign(h, campaignId, limit, k),
    );
  }

  /** Puts back a campaign slot taken for a send that did not happen (no inbox had room). */
  giveBackCampaign(campaignId: number): void {
    const h = this.campaigns.get(campaignId);
    if (h) h.n += 1;
  }

  /** Puts back an inbox (and domain) slot taken for a send that did not happen (its step failed to render). */
  giveBackInbox(inboxId: string): void {
    const h = this.inboxes.get(inboxId);
    if (h) h.n += 1;
  }

  /** One slot of the inbox's daily limit and of its domain's daily limit; false when either is full. */
  takeInbox(
    workspaceId: WorkspaceId,
    inboxId: string,
    domain: string,
    domainLimit: number,
  ): Promise<boolean> {
    return this.take(this.inboxes, inboxId, workspaceId, domain, (h, k) =>
      this.reserveInbox(h, inboxId, domainLimit, k),
    );
  }

  private async take<K>(
    map: Map<K, Held>,
    id: K,
    workspaceId: WorkspaceId,
    key: string,
    reserve: (h: Held, k: number) => Promise<void>,
  ): Promise<boolean> {
    for (;;) {
      let h = map.get(id);
      if (!h) {
        h = { n: 0, day: null, exhausted: false, workspaceId, key };
        map.set(id, h);
      }
      if (h.n > 0) {
        h.n -= 1;
        return true;
      }
      if (h.refilling) {
        await h.refilling;
        continue;
      }
      if (h.exhausted) return false;
      const held = h;
      held.refilling = reserve(held, Math.max(1, this.want())).finally(() => {
        held.refilling = undefined;
      });
      await held.refilling;
    }
  }

  private async reserveCampaign(h: Held, campaignId: number, limit: number, k: number): Promise<void> {
    await this.ds.transaction(async (m) => {
      const c = await this.capacity.lockCounter(h.workspaceId, 'campaign', String(campaignId), m);
      const granted = Math.min(k, Math.max(0, limit - c.sent));
      if (granted > 0) {
        await this.capacity.addToCounter(h.workspaceId, 'campaign', String(campaignId), c.today, granted, m);
      }
      this.credit(h, granted, c.today);
    });
  }

  private async reserveInbox(h: Held, inboxId: string, domainLimit: number, k: number): Promise<void> {
    await this.ds.transaction(async (m) => {
      // Same lock order as a single reservation: the inbox row, then the domain counter.
      const inbox = await this.inboxState.lockDailyCount(h.workspaceId, inboxId, m);
      if (!inbox || inbox.status !== 'active') return this.credit(h, 0, null);
      const today = inbox.today;
      const used = inbox.counted_day === today ? Number(inbox.sent_today) : 0;
      const inboxRoom = Math.max(0, Number(inbox.daily_limit) - used);
      if (inboxRoom === 0) return this.credit(h, 0, today);
      const domain = await this.capacity.lockCounter(h.workspaceId, 'domain', h.key, m, today);
      const granted = Math.min(k, inboxRoom, Math.max(0, domainLimit - domain.sent));
      if (granted > 0) {
        await this.inboxState.setDailyCount(h.workspaceId, inboxId, used + granted, today, m);
        await this.capacity.addToCounter(h.workspaceId, 'domain', h.key, today, granted, m);
      }
      this.credit(h, granted, today);
    });
  }

  private credit(h: Held, granted: number, day: string | null): void {
    if (granted > 0 && h.n > 0 && h.day !== day) {
      // Slots of a previous day are worthless today; they were counted on that day only.
      h.n = 0;
    }
    h.n += granted;
    h.day = day ?? h.day;
    h.exhausted = granted === 0;
  }

  /** Gives the unused slots back (the tick is over). Counters of another day are left alone. */
  async release(): Promise<void> {
    const campaigns = [...this.campaigns.entries()].filter(([, h]) => h.n > 0 && h.day);
    const inboxes = [...this.inboxes.entries()].filter(([, h]) => h.n > 0 && h.day);
    for (const [campaignId, h] of campaigns) {
      await this.capacity.addToCounter(
        h.workspaceId,
        'campaign',
        String(campaignId),
        h.day!,
        -h.n,
        this.ds.manager,
      );
      h.n = 0;
    }
    for (const [inboxId, h] of inboxes) {
      await this.ds.transaction(async (m) => {
        await this.inboxState.giveBackDailyCount(h.workspaceId, inboxId, h.day!, h.n, m);
        await this.capacity.addToCounter(h.workspaceId, 'domain', h.key, h.day!, -h.n, m);
      });
      h.n = 0;
    }
  }
}
