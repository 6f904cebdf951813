/**
 * `GET /inboxes/{id}/health`: the inbox's sending domain judged from DNS (domain-health.ts), kept on
 * the inbox row for an hour (`?refresh=true` reads DNS again). Reconnecting an inbox clears it.
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

export const HEALTH_CACHE_MS = 3_600_000;

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
  constructor(private readonly inboxes: InboxesRepository) {}

  async health(workspaceId: WorkspaceId, id: string, refresh: boolean): Promise<DomainHealthView> {
    const inbox = await this.inboxes.findOne(workspaceId, { id });
    if (!inbox) throw ApiError.notFound();
    const cached = inbox.health;
    if (
      !refresh &&
      cached &&
      cached.domain === inbox.domain &&
      Date.now() - Date.parse(cached.checked_at) < HEALTH_CACHE_MS
    ) {
      return cached;
    }
    const { view, cacheable } = await checkDomainHealth(healthSubject(inbox), healthResolver());
    if (cacheable) await this.inboxes.cacheHealth(workspaceId, id, view);
    return view;
  }
}
