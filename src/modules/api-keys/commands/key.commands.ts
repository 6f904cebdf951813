import { Command, Option } from 'nest-commander';
import {
  CliError,
  JsonCommand,
  parseIntFlag,
  required,
  uuidFlag,
  type JsonFlag,
} from '../../../common/cli/json-command.js';
import { PROVISIONING_SCOPES, WORKSPACE_SCOPES } from '../../../common/auth/scopes.js';
import type { KeyTier } from '../../../common/auth/token.js';
import { ApiKeysService } from '../api-keys.service.js';
import { toApiKeyView } from '../api-key.view.js';

const list = (v: string): string[] =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

interface CreateFlags extends JsonFlag {
  tier?: string;
  workspace?: string;
  org?: string;
  scopes?: string[];
  name?: string;
  expiresAt?: Date;
  allowedIps?: string[];
  rateLimit?: number;
}

@Command({
  name: 'key:create',
  description:
    'Mint an API key: --tier workspace --workspace UUID | --tier provisioning --org ID, with --scopes a,b',
})
export class KeyCreateCommand extends JsonCommand<CreateFlags> {
  constructor(private readonly keys: ApiKeysService) {
    super();
  }

  @Option({ flags: '--tier <tier>', description: 'workspace or provisioning', required: true })
  parseTier(v: string): string {
    if (v !== 'workspace' && v !== 'provisioning')
      throw new CliError('--tier must be workspace or provisioning');
    return v;
  }
  @Option({ flags: '--workspace <uuid>', description: 'workspace of a workspace key' })
  parseWorkspace(v: string): string {
    return uuidFlag('workspace', 'a workspace')(v);
  }
  @Option({ flags: '--org <id>', description: 'organization of a provisioning key' })
  parseOrg(v: string): string {
    return uuidFlag('org', 'an organization')(v);
  }
  protected override subject(o: CreateFlags): string | undefined {
    return o.workspace ? `workspace ${o.workspace}` : o.org ? `organization ${o.org}` : undefined;
  }
  @Option({
    flags: '--scopes <list>',
    description:
      `comma-separated scopes; workspace keys: ${WORKSPACE_SCOPES.join(', ')}; ` +
      `provisioning keys: ${PROVISIONING_SCOPES.join(', ')}`,
    required: true,
  })
  parseScopes(v: string): string[] {
    return list(v);
  }
  @Option({ flags: '--name <name>', description: 'display name' })
  parseName(v: string): string {
    return v;
  }
  @Option({ flags: '--expires-at <iso>', description: 'expiry, ISO 8601' })
  parseExpires(v: string): Date {
    const d = new Date(v);
    if (Number.isNaN(d.getTime())) throw new CliError('--expires-at must be an ISO 8601 time');
    return d;
  }
  @Option({ flags: '--allowed-ips <list>', description: 'comma-separated CIDRs the key may be used from' })
  parseIps(v: string): string[] {
    return list(v);
  }
  @Option({ flags: '--rate-limit <n>', description: 'requests per minute' })
  parseRateLimit(v: string): number {
    return parseIntFlag('rate-limit')(v);
  }

  protected async execute(_: string[], o: CreateFlags): Promise<Record<string, unknown>> {
    const tier = required(o.tier, 'tier') as KeyTier;
    if (tier === 'workspace' && o.org) throw new CliError('a workspace key takes --workspace, not --org');
    if (tier === 'provisioning' && o.workspace)
      throw new CliError('a provisioning key takes --org, not --workspace');
    const { key, token } = await this.keys.create({
      tier,
      workspaceId: tier === 'workspace' ? required(o.workspace, 'workspace') : undefined,
      organizationId: tier === 'provisioning' ? required(o.org, 'org') : undefined,
      scopes: required(o.scopes, 'scopes'),
      name: o.name,
      expiresAt: o.expiresAt ?? null,
      allowedIps: o.allowedIps ?? [],
      rateLimit: o.rateLimit ?? null,
    });
    return { id: key.id, token, prefix: key.prefix, tier: key.tier, scopes: key.scopes };
  }

  protected override text(r: Record<string, unknown>): string {
    return `key ${String(r.id)} (${String(r.tier)}): ${String(r.token)}\nThe secret is shown once; store it now.`;
  }
}

@Command({
  name: 'key:list',
  description: 'List the keys of a workspace (--workspace) or organization (--org); never secrets',
})
export class KeyListCommand extends JsonCommand<JsonFlag & { workspace?: string; org?: string }> {
  constructor(private readonly keys: ApiKeysService) {
    super();
  }
  @Option({ flags: '--workspace <uuid>', description: 'workspace UUID' })
  parseWorkspace(v: string): string {
    return uuidFlag('workspace', 'a workspace')(v);
  }
  @Option({ flags: '--org <id>', description: 'organization UUID' })
  parseOrg(v: string): string {
    return uuidFlag('org', 'an organization')(v);
  }
  protected override subject(o: JsonFlag & { workspace?: string; org?: string }): string | undefined {
    return o.workspace ? `workspace ${o.workspace}` : `organization ${o.org}`;
  }
  protected async execute(
    _: string[],
    o: JsonFlag & { workspace?: string; org?: string },
  ): Promise<Record<string, unknown>> {
    if (!o.workspace === !o.org) throw new CliError('give exactly one of --workspace or --org');
    const keys = await this.keys.list({ workspaceId: o.workspace, organizationId: o.org });
    return { keys: keys.map(toApiKeyView) };
  }
}

@Command({ name: 'key:rotate', description: 'Issue a new secret for a key; the old secret stops working' })
export class KeyRotateCommand extends JsonCommand<JsonFlag & { id?: number }> {
  constructor(private readonly keys: ApiKeysService) {
    super();
  }
  @Option({ flags: '--id <id>', description: 'key id', required: true })
  parseId(v: string): number {
    return parseIntFlag('id')(v);
  }
  protected override subject(o: JsonFlag & { id?: number }): string {
    return `key ${o.id}`;
  }
  protected async execute(_: string[], o: JsonFlag & { id?: number }): Promise<Record<string, unknown>> {
    const { key, token } = await this.keys.rotate(required(o.id, 'id'));
    return { id: key.id, token, prefix: key.prefix };
  }
}

@Command({ name: 'key:revoke', description: 'Revoke a key (keys it minted keep working)' })
export class KeyRevokeCommand extends JsonCommand<JsonFlag & { id?: number }> {
  constructor(private readonly keys: ApiKeysService) {
    super();
  }
  @Option({ flags: '--id <id>', description: 'key id', required: true })
  parseId(v: string): number {
    return parseIntFlag('id')(v);
  }
  protected override subject(o: JsonFlag & { id?: number }): string {
    return `key ${o.id}`;
  }
  protected async execute(_: string[], o: JsonFlag & { id?: number }): Promise<Record<string, unknown>> {
    const key = await this.keys.revoke(required(o.id, 'id'));
    return { id: key.id, revoked_at: key.revokedAt?.toISOString() ?? null };
  }
}
