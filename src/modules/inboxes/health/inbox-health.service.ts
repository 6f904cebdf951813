/**
 * `GET /inboxes/{id}/health`: the inbox's sending domain judged from DNS (domain-health.ts), kept on
 * the inbox row for an hour (5 minutes when DNS did not answer); `?refresh=true` reads DNS again, but
 * not within a minute of the last check. Concurrent calls for one inbox in a process share one check,
 * and one check ends by its DNS deadline (dns-resolver.ts). Reconnecting an inbox clears the answer.
 */
import { Injectable } from '@nestjs/common';
import { appConfig } from '../../../config/app-config.js';
import { ApiError } from '../../../common/http/api-error.js';
import type { Inbox } from '../entities/inbox.entity.js';
import { openSettings } from '../inbox-credentials.js';
import { InboxesRepository } from '../inboxes.repository.js';
import { healthResolver } from './dns-resolver.js';
import { checkDomainHealth, type DomainHealthView, type HealthSubject } from './domain-health.js';
import type { WorkspaceId } from '../../../common/tenant/workspace-id.js';

/** A check's answer is kept an hour; one with a `temperror` check (DNS did not answer) 5 minutes. */
export const HEALTH_CACHE_MS = 3_600_000;
export const HEALTH_FAILED_CACHE_MS = 300_000;
/** `?refresh=true` reads DNS again at most once a minute per inbox. */
export const HEALTH_REFRESH_MIN_MS = 60_000;

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
    const check = this.check(workspaceId, inbox).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, check);
    return check;
  }

  private async check(workspaceId: WorkspaceId, inbox: Inbox): Promise<DomainHealthView> {
    const dns = healthResolver();
    try {
      const { view } = await checkDomainHealth(healthSubject(inbox), dns);
      // Kept an hour, or 5 minutes when DNS did not answer (checked_at ages either).
      await this.inboxes.cacheHealth(workspaceId, inbox.id, view);
      return view;
    } finally {
      dns.close();
    }
  }
}

/** A cached answer as the API shows it (answers cached before `temperror` existed had none). */
function viewOf(v: DomainHealthView): DomainHealthView {
  return { ...v, checks: v.checks.map((c) => ({ ...c, temperror: c.temperror === true })) };
}
