/**
 * Inbox metadata for the API (credential-free by construction: the view is built field by field),
 * and connecting an inbox for the admin CLI.
 */
import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { ApiError } from '../../common/http/api-error.js';
import { isUuid } from '../../common/http/id-params.js';
import type { Page, PageQueryDto } from '../../common/http/pagination.js';
import type { UpdateInboxDto } from './dto/inbox.dto.js';
import type { Inbox, InboxTransport } from './entities/inbox.entity.js';
import { appConfig } from '../../config/app-config.js';
import type { OAuthProviderName } from '../../config/mail-providers.js';
import {
  hashInboundSecret,
  newInboundSecret,
  sealRefreshToken,
  sealSettings,
  type MailServerSettings,
} from './inbox-credentials.js';
import { InboxesRepository } from './inboxes.repository.js';
import { toInboxView, type InboxView } from './inbox.view.js';
import { asWorkspaceId, type WorkspaceId } from '../../common/tenant/workspace-id.js';

export interface ConnectInboxInput {
  workspaceId: WorkspaceId;
  email: string;
  displayName?: string | null;
  dailyLimit?: number;
  smtp: MailServerSettings;
  imap?: MailServerSettings | null;
}

/** An OAuth inbox: its provider's servers, signed in with XOAUTH2 from a refresh token. */
export interface ConnectOAuthInboxInput {
  workspaceId: WorkspaceId;
  email: string;
  provider: OAuthProviderName;
  refreshToken: string;
  /** The account's subject at the provider (from the callback); unknown for a CLI refresh token. */
  subject?: string | null;
  displayName?: string | null;
  dailyLimit?: number;
  /** `smtp` (default) or `api` (the provider's own API; the consent flow's inboxes). */
  transport?: InboxTransport;
}

/** The SMTP and IMAP settings of a provider's mailbox for `email` (no password: XOAUTH2). */
export function providerSettings(
  provider: OAuthProviderName,
  email: string,
): { smtp: MailServerSettings; imap: MailServerSettings } {
  const p = appConfig().mailProviders[provider];
  const user = email.trim().toLowerCase();
  return { smtp: { ...p.smtp, user, password: null }, imap: { ...p.imap, user, password: null } };
}

/** Connects (or reconnects, making it active again) a Google or Microsoft inbox by OAuth 2.0. */
export function connectOAuthInbox(
  db: DataSource,
  input: ConnectOAuthInboxInput,
): Promise<{ inbox: Inbox; inboundSecret: string; reconnected: boolean }> {
  if (!input.refreshToken || input.refreshToken.length > 4096 || /\s/.test(input.refreshToken)) {
    throw ApiError.validation('refresh_token', 'refresh token is missing or malformed');
  }
  const { smtp, imap } = providerSettings(input.provider, input.email);
  return connectInbox(db, {
    ...input,
    smtp,
    imap,
    oauth: {
      provider: input.provider,
      refreshToken: input.refreshToken,
      transport: input.transport ?? 'smtp',
      subject: input.subject ?? null,
    },
  });
}

const EMAIL_RE =
  /^[^\s@<>()[\]\\,;:"]+@([A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+)$/;

/**
 * Connects an inbox, or re-connects the workspace's inbox with the same address (new credentials, a
 * new inbound secret, status back to active). Returns the inbound secret once.
 */
export async function connectInbox(
  db: DataSource,
  input: ConnectInboxInput & {
    oauth?: {
      provider: OAuthProviderName;
      refreshToken: string;
      transport: InboxTransport;
      subject?: string | null;
    };
  },
): Promise<{ inbox: Inbox; inboundSecret: string; reconnected: boolean }> {
  const email = input.email.trim().toLowerCase();
  const match = EMAIL_RE.exec(email);
  if (!match || email.length > 254) throw ApiError.validation('email', 'email must be a valid address');
  const domain = match[1].toLowerCase();
  if (!isUuid(input.workspaceId)) throw ApiError.notFound('Workspace');
  const dailyLimit = input.dailyLimit ?? 50;
  if (!Number.isInteger(dailyLimit) || dailyLimit < 1 || dailyLimit > 100000) {
    throw ApiError.validation('daily_limit', 'daily limit must be an integer from 1 to 100000');
  }
  for (const [name, s] of [
    ['smtp', input.smtp],
    ['imap', input.imap ?? null],
  ] as const) {
    if (!s) continue;
    if (!s.host || s.host.length > 253 || /\s/.test(s.host))
      throw ApiError.validation(`${name}_host`, `${name} host is invalid`);
    if (!Number.isInteger(s.port) || s.port < 1 || s.port > 65535) {
      throw ApiError.validation(`${name}_port`, `${name} port must be 1..65535`);
    }
  }
  const run = async (manager: EntityManager) => {
    const inboxes = InboxesRepository.for(manager);
    // The CLI's --workspace may be upper case; the row found is the workspace (or there is none).
    const ws = await inboxes.lockWorkspace(asWorkspaceId(input.workspaceId.toLowerCase()), manager);
    if (!ws) throw ApiError.notFound('Workspace');
    const inboundSecret = newInboundSecret();
    const existing = await inboxes.findOne(ws.id, { email });
    // The account an inbox was connected with stays its account: another one showing the same
    // address (another tenant's user, a renamed account) does not take it over.
    const subject = input.oauth?.subject ?? null;
    if (existing?.oauthSubject && subject && existing.oauthSubject !== subject) {
      throw ApiError.conflict(
        `${email} is connected with another ${input.oauth!.provider} account: disconnect it first or sign in with that account`,
      );
    }
    // The id is chosen here, before the insert, because the sealed settings are bound to it.
    const id = existing?.id ?? randomUUID();
    const values = {
      displayName: input.displayName ?? existing?.displayName ?? null,
      dailyLimit: input.dailyLimit ?? existing?.dailyLimit ?? dailyLimit,
      domain,
      status: 'active' as const,
      provider: input.oauth?.provider ?? ('smtp' as const),
      auth: input.oauth ? ('oauth2' as const) : ('password' as const),
      transport: input.oauth?.transport ?? ('smtp' as const),
      smtpSealed: sealSettings(input.smtp, id, 'smtp'),
      imapSealed: input.imap ? sealSettings(input.imap, id, 'imap') : null,
      oauthSealed: input.oauth ? sealRefreshToken(input.oauth.refreshToken, id) : null,
      oauthConnectedAt: input.oauth ? new Date() : null,
      oauthSubject: input.oauth ? (subject ?? existing?.oauthSubject ?? null) : null,
      inboundSecretHash: hashInboundSecret(inboundSecret),
    };
    if (existing) {
      await inboxes.reconnect(ws.id, existing.id, values);
      const inbox = (await inboxes.findOne(ws.id, { id: existing.id }))!;
      return { inbox, inboundSecret, reconnected: true };
    }
    const inbox = await inboxes.insert(ws.id, { ...values, id, email });
    return { inbox, inboundSecret, reconnected: false };
  };
  return db.transaction(run);
}

@Injectable()
export class InboxesService {
  constructor(
    private readonly inboxes: InboxesRepository,
    @InjectDataSource() private readonly db: DataSource,
  ) {}

  async show(workspaceId: WorkspaceId, id: string): Promise<InboxView> {
    const row = await this.inboxes.findOne(workspaceId, { id });
    if (!row) throw ApiError.notFound();
    return toInboxView(row);
  }

  /**
   * `PATCH /inboxes/{id}`: display name, daily limit, pause/resume, ramp-up, transport (OAuth inboxes). A ramp that changes (or
   * appears) starts now; the same ramp sent again keeps its start. An inbox waiting for a new OAuth
   * grant (`reauth_required`) cannot be resumed here: only connecting it again makes it active.
   */
  async update(workspaceId: WorkspaceId, id: string, body: UpdateInboxDto): Promise<InboxView> {
    return this.db.transaction(async (m) => {
      const row = await this.inboxes.findOneForUpdate(workspaceId, { id }, m);
      if (!row) throw ApiError.notFound();
      const patch: Partial<Inbox> = {};
      if (body.display_name !== undefined) patch.displayName = body.display_name;
      if (body.daily_limit !== undefined) patch.dailyLimit = body.daily_limit;
      if (body.status !== undefined && body.status !== row.status) {
        if (row.status === 'reauth_required') {
          throw ApiError.conflict('The inbox needs a new OAuth grant: connect it again to resume it');
        }
        patch.status = body.status;
      }
      if (body.transport !== undefined && body.transport !== row.transport) {
        if (body.transport === 'api' && row.auth !== 'oauth2') {
          throw ApiError.validation(
            'transport',
            'transport api needs an OAuth inbox (Google or Microsoft, auth oauth2): this inbox signs in with a password',
          );
        }
        // The other transport reads from its own checkpoint; the API one starts over (a bounded re-read).
        Object.assign(patch, { transport: body.transport, apiCheckpoint: null, sendHeldUntil: null });
      }
      if (body.ramp_up === null) {
        Object.assign(patch, { rampStart: null, rampIncreasePerDay: null, rampStartedAt: null });
      } else if (
        body.ramp_up !== undefined &&
        (body.ramp_up.start !== row.rampStart || body.ramp_up.increase_per_day !== row.rampIncreasePerDay)
      ) {
        Object.assign(patch, {
          rampStart: body.ramp_up.start,
          rampIncreasePerDay: body.ramp_up.increase_per_day,
          rampStartedAt: new Date(),
        });
      }
      if (Object.keys(patch).length > 0) await this.inboxes.applySettings(workspaceId, id, patch, m);
      return toInboxView({ ...row, ...patch });
    });
  }

  async list(workspaceId: WorkspaceId, query: PageQueryDto): Promise<Page<Inbox>> {
    return this.inboxes.page(workspaceId, query);
  }

  connect(input: ConnectInboxInput) {
    return connectInbox(this.db, input);
  }
}
