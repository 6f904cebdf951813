/**
 * `GET /inboxes/{id}/health`: the inbox's sending domain judged from DNS (domain-health.ts), kept on
 * the inbox row for an hour (5 minutes when DNS did not answer); `?refresh=true` reads DNS again, but
 * not within a minute of the last check. Concurrent calls for one inbox share one check (in a process
 * by a shared promise, across processes by a claim on the inbox row), and one check ends by its DNS
 * deadline (dns-resolver.ts). Reconnecting an inbox clears the answer.
 */
import { Injectable } from '@nestjs/common';
import { appConfig } from '../../../config/app-config.js';
import { ApiError } from '../../../common/http/api-error.js';
import type { Inbox } from '../entities/inbox.entity.js';
import { openSettings } from '../inbox-credentials.js';
import { InboxesRepository } from '../inboxes.repository.js';
import { healthResolver } from './dns-resolver.js';
import {
  checkDomainHealth,
  type DomainHealthView,
  type HealthCheckName,
  type HealthSubject,
} from './domain-health.js';
import type { WorkspaceId } from '../../../common/tenant/workspace-id.js';

/** A check's answer is kept an hour; one with a `temperror` check (DNS did not answer) 5 minutes. */
export const HEALTH_CACHE_MS = 3_600_000;
export const HEALTH_FAILED_CACHE_MS = 300_000;
/** `?refresh=true` reads DNS again at most once a minute per inbox. */
export const HEALTH_REFRESH_MIN_MS = 60_000;
/** How long a process's claim on checking an inbox lasts: past its DNS deadline and the writes. */
export const HEALTH_CLAIM_MS = 9_000;
const CLAIM_POLL_MS = 250;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Who sends for `inbox`: its OAuth provider's servers, or its own SMTP host. */
export function healthSubject(inbox: Inbox): HealthSubject {
  const { mailProviders, dkimSelectors } = appConfig();
  if (inbox.provider === 'google' || inbox.provider === 'microsoft') {
    const p = mailProviders[inbox.provider];
    return {
      domain: inbox.domain,
      sender: { kind: 'provider', label: p.label, probeIp: p.spfProbeIp, dkimSelectors: p.dkimSelectors },
      extraSelectors: dkimSelectors,
    };
  }
  const { host } = openSettings(inbox.smtpSealed, inbox.id, 'smtp');
  return { domain: inbox.domain, sender: { kind: 'host', host }, extraSelectors: dkimSelectors };
}

@Injectable()
export class InboxHealthService {
  /** Checks under way in this process, by inbox: concurrent calls share one. */
  private readonly inFlight = new Map<string, Promise<DomainHealthView>>();

  constructor(private readonly inboxes: InboxesRepository) {}

  async health(workspaceId: WorkspaceId, id: string, refresh: boolean): Promise<DomainHealthView> {
    const inbox = await this.inboxes.findOne(workspaceId, { id });
    if (!inbox) throw ApiError.notFound();
    const cached = inbox.health && inbox.health.domain === inbox.domain ? viewOf(inbox.health) : null;
    if (cached) {
      const age = Date.now() - Date.parse(cached.checked_at);
      const ttl = cached.checks.some((c) => c.temperror) ? HEALTH_FAILED_CACHE_MS : HEALTH_CACHE_MS;
      if (age >= 0 && age < (refresh ? Math.min(ttl, HEALTH_REFRESH_MIN_MS) : ttl)) return cached;
    }
    const key = `${inbox.id}:${inbox.domain}`;
    const running = this.inFlight.get(key);
    if (running) return running;
    const check = this.checkOnce(workspaceId, inbox, cached?.checked_at ?? null).finally(() =>
      this.inFlight.delete(key),
    );
    this.inFlight.set(key, check);
    return check;
  }

  /**
   * One check across processes: the process that claims the inbox checks; another waits for that
   * answer (a new `checked_at`) while the claim lasts, and answers `temperror` if none came.
   */
  private async checkOnce(
    workspaceId: WorkspaceId,
    inbox: Inbox,
    seen: string | null,
  ): Promise<DomainHealthView> {
    if (await this.inboxes.claimHealthCheck(workspaceId, inbox.id, HEALTH_CLAIM_MS)) {
      return this.check(workspaceId, inbox);
    }
    const until = Date.now() + HEALTH_CLAIM_MS;
    while (Date.now() < until) {
      await sleep(CLAIM_POLL_MS);
      const now = await this.inboxes.findOne(workspaceId, { id: inbox.id });
      if (!now) throw ApiError.notFound();
      if (now.health && now.health.domain === inbox.domain && now.health.checked_at !== seen) {
        return viewOf(now.health);
      }
    }
    return unfinished(inbox);
  }

  private async check(workspaceId: WorkspaceId, inbox: Inbox): Promise<DomainHealthView> {
    const dns = healthResolver();
    let cached = false;
    try {
      const { view } = await checkDomainHealth(healthSubject(inbox), dns);
      // Kept an hour, or 5 minutes when DNS did not answer (checked_at ages either).
      await this.inboxes.cacheHealth(workspaceId, inbox.id, view);
      cached = true;
      return view;
    } finally {
      dns.close();
      if (!cached) await this.inboxes.releaseHealthCheck(workspaceId, inbox.id).catch(() => undefined);
    }
  }
}

/** What a call answers when another process's check of the inbox did not finish in time. */
function unfinished(inbox: Inbox): DomainHealthView {
  const names: HealthCheckName[] = ['mx', 'spf', 'dkim', 'dmarc'];
  if (healthSubject(inbox).sender.kind === 'host') names.push('ptr');
  return {
    domain: inbox.domain,
    checked_at: new Date().toISOString(),
    verdict: 'warn',
    checks: names.map((name) => ({
      name,
      ok: false,
      temperror: true,
      detail: 'another check of this domain did not finish in time; try again later',
    })),
  };
}

/** A cached answer as the API shows it (answers cached before `temperror` existed had none). */
function viewOf(v: DomainHealthView): DomainHealthView {
  return { ...v, checks: v.checks.map((c) => ({ ...c, temperror: c.temperror === true })) };
}
