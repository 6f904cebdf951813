import { InjectDataSource } from '@nestjs/typeorm';
import { Command, Option } from 'nest-commander';
import type { DataSource } from 'typeorm';
import {
  CliError,
  JsonCommand,
  parseIntFlag,
  required,
  uuidFlag,
  type JsonFlag,
} from '../../../common/cli/json-command.js';
import {
  OAUTH_PROVIDERS,
  oauthNotConfigured,
  type OAuthProviderName,
} from '../../../config/mail-providers.js';
import { appConfig } from '../../../config/app-config.js';
import { connectInbox, connectOAuthInbox } from '../inboxes.service.js';
import type { MailServerSettings } from '../inbox-credentials.js';
import { asWorkspaceId } from '../../../common/tenant/workspace-id.js';

export interface InboxConnectFlags extends JsonFlag {
  workspace?: string;
  email?: string;
  displayName?: string;
  dailyLimit?: number;
  smtpHost?: string;
  smtpPort?: number;
  smtpUser?: string;
  smtpPasswordEnv?: string;
  smtpSecure?: boolean;
  imapHost?: string;
  imapPort?: number;
  imapUser?: string;
  imapPasswordEnv?: string;
  imapSecure?: boolean;
  provider?: string;
  refreshTokenEnv?: string;
  transport?: 'smtp' | 'api';
}

const port =
  (flag: string) =>
  (v: string): number => {
    const n = parseIntFlag(flag)(v);
    if (n < 1 || n > 65535) throw new CliError(`--${flag} must be 1..65535`);
    return n;
  };

/** Reads a password from the named environment variable, so it never appears in argv or shell history. */
function passwordFrom(flag: string, variable: string | undefined): string | null {
  if (variable === undefined) return null;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(variable))
    throw new CliError(`--${flag} must name an environment variable`);
  const value = process.env[variable];
  if (value === undefined || value === '')
    throw new CliError(`--${flag}: environment variable ${variable} is not set`);
  return value;
}

@Command({
  name: 'inbox:connect',
  description:
    'Connect an SMTP inbox (optionally polled over IMAP) to a workspace; prints the inbound secret once. ' +
    'Passwords are read from environment variables named by --smtp-password-env / --imap-password-env. ' +
    'With --provider google|microsoft the inbox signs in by OAuth 2.0 (XOAUTH2) with a refresh token ' +
    'obtained elsewhere, read from the variable named by --refresh-token-env.',
})
export class InboxConnectCommand extends JsonCommand<InboxConnectFlags> {
  constructor(@InjectDataSource() private readonly db: DataSource) {
    super();
  }

  @Option({ flags: '--workspace <uuid>', description: 'workspace UUID', required: true })
  parseWorkspace(v: string): string {
    return uuidFlag('workspace', 'a workspace')(v);
  }

  protected override subject(o: InboxConnectFlags): string {
    return `workspace ${o.workspace}`;
  }
  @Option({ flags: '--email <address>', description: 'the sending address', required: true })
  parseEmail(v: string): string {
    return v;
  }
  @Option({ flags: '--display-name <name>', description: 'display name on the From header' })
  parseDisplayName(v: string): string {
    if (v.length > 200) throw new CliError('--display-name must be at most 200 characters');
    return v;
  }
  @Option({ flags: '--daily-limit <n>', description: 'sends per UTC day (default 50)' })
  parseDailyLimit(v: string): number {
    return parseIntFlag('daily-limit')(v);
  }
  @Option({
    flags: '--provider <name>',
    description: 'smtp (default: a server and a password) or google|microsoft (OAuth 2.0)',
  })
  parseProvider(v: string): string {
    if (![...OAUTH_PROVIDERS, 'smtp'].includes(v))
      throw new CliError('--provider must be smtp, google or microsoft');
    return v;
  }
  @Option({
    flags: '--refresh-token-env <VAR>',
    description: 'environment variable holding the OAuth refresh token (with --provider google|microsoft)',
  })
  parseRefreshTokenEnv(v: string): string {
    return v;
  }
  @Option({
    flags: '--transport <smtp|api>',
    description:
      "with --provider google|microsoft: smtp (default: SMTP and IMAP with XOAUTH2) or api (the provider's own API: Gmail API, Microsoft Graph; the refresh token must carry its scopes)",
  })
  parseTransport(v: string): 'smtp' | 'api' {
    if (v !== 'smtp' && v !== 'api') throw new CliError('--transport must be smtp or api');
    return v;
  }
  @Option({ flags: '--smtp-host <host>', description: 'SMTP server (password inboxes)' })
  parseSmtpHost(v: string): string {
    return v;
  }
  @Option({ flags: '--smtp-port <port>', description: 'SMTP port (password inboxes)' })
  parseSmtpPort(v: string): number {
    return port('smtp-port')(v);
  }
  @Option({ flags: '--smtp-user <user>', description: 'SMTP user name' })
  parseSmtpUser(v: string): string {
    return v;
  }
  @Option({
    flags: '--smtp-password-env <VAR>',
    description: 'environment variable holding the SMTP password',
  })
  parseSmtpPasswordEnv(v: string): string {
    return v;
  }
  @Option({ flags: '--smtp-secure', description: 'implicit TLS (port 465); otherwise STARTTLS when offered' })
  parseSmtpSecure(): boolean {
    return true;
  }
  @Option({ flags: '--imap-host <host>', description: 'IMAP server to poll for replies and bounces' })
  parseImapHost(v: string): string {
    return v;
  }
  @Option({ flags: '--imap-port <port>', description: 'IMAP port' })
  parseImapPort(v: string): number {
    return port('imap-port')(v);
  }
  @Option({ flags: '--imap-user <user>', description: 'IMAP user name' })
  parseImapUser(v: string): string {
    return v;
  }
  @Option({
    flags: '--imap-password-env <VAR>',
    description: 'environment variable holding the IMAP password',
  })
  parseImapPasswordEnv(v: string): string {
    return v;
  }
  @Option({ flags: '--imap-secure', description: 'implicit TLS (port 993)' })
  parseImapSecure(): boolean {
    return true;
  }

  protected async execute(_: string[], o: InboxConnectFlags): Promise<Record<string, unknown>> {
    if (o.provider && o.provider !== 'smtp') return this.connectOAuth(o, o.provider as OAuthProviderName);
    if (o.refreshTokenEnv) throw new CliError('--refresh-token-env needs --provider google|microsoft');
    if (o.transport === 'api') throw new CliError('--transport api needs --provider google|microsoft');
    const smtpPassword = passwordFrom('smtp-password-env', o.smtpPasswordEnv);
    if (smtpPassword !== null && !o.smtpUser) throw new CliError('--smtp-password-env needs --smtp-user');
    const smtp: MailServerSettings = {
      host: required(o.smtpHost, 'smtp-host'),
      port: required(o.smtpPort, 'smtp-port'),
      secure: o.smtpSecure === true,
      user: o.smtpUser ?? null,
      password: smtpPassword,
    };
    const imapGiven = [o.imapHost, o.imapPort, o.imapUser, o.imapPasswordEnv, o.imapSecure].some(
      (v) => v !== undefined,
    );
    let imap: MailServerSettings | null = null;
    if (imapGiven) {
      imap = {
        host: required(o.imapHost, 'imap-host'),
        port: required(o.imapPort, 'imap-port'),
        secure: o.imapSecure === true,
        user: required(o.imapUser, 'imap-user'),
        password: passwordFrom('imap-password-env', required(o.imapPasswordEnv, 'imap-password-env')),
      };
    }
    const { inbox, inboundSecret } = await connectInbox(this.db, {
      workspaceId: asWorkspaceId(required(o.workspace, 'workspace')),
      email: required(o.email, 'email'),
      displayName: o.displayName ?? null,
      dailyLimit: o.dailyLimit,
      smtp,
      imap,
    });
    return { id: inbox.id, email: inbox.email, inbound_secret: inboundSecret };
  }

  /** An OAuth inbox: the provider's servers, the refresh token from the environment. */
  private async connectOAuth(
    o: InboxConnectFlags,
    provider: OAuthProviderName,
  ): Promise<Record<string, unknown>> {
    const serverFlags = [
      o.smtpHost,
      o.smtpPort,
      o.smtpUser,
      o.smtpPasswordEnv,
      o.smtpSecure,
      o.imapHost,
      o.imapPort,
      o.imapUser,
      o.imapPasswordEnv,
      o.imapSecure,
    ];
    if (serverFlags.some((v) => v !== undefined)) {
      throw new CliError(
        `--provider ${provider} uses the provider's servers: leave out the --smtp-* and --imap-* flags`,
      );
    }
    // As the API refuses to start a flow: an inbox whose tokens can never be refreshed is not connected.
    const notConfigured = oauthNotConfigured(appConfig().mailProviders[provider], provider);
    if (notConfigured) throw new CliError(notConfigured);
    const refreshToken = passwordFrom('refresh-token-env', required(o.refreshTokenEnv, 'refresh-token-env'));
    const { inbox, inboundSecret } = await connectOAuthInbox(this.db, {
      workspaceId: asWorkspaceId(required(o.workspace, 'workspace')),
      email: required(o.email, 'email'),
      provider,
      refreshToken: refreshToken!,
      displayName: o.displayName ?? null,
      dailyLimit: o.dailyLimit,
      transport: o.transport ?? 'smtp',
    });
    return { id: inbox.id, email: inbox.email, transport: inbox.transport, inbound_secret: inboundSecret };
  }

  protected override text(r: Record<string, unknown>): string {
    return (
      `inbox ${String(r.id)} (${String(r.email)}) connected\n` +
      `inbound secret: ${String(r.inbound_secret)}\nThe secret is shown once; store it now.`
    );
  }
}
