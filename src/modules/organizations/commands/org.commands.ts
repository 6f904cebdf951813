import { Command, Option } from 'nest-commander';
import {
  JsonCommand,
  parseIntFlag,
  required,
  uuidFlag,
  type JsonFlag,
} from '../../../common/cli/json-command.js';
import { OrganizationsService, planOf, type PlanInput } from '../organizations.service.js';

interface PlanFlags extends JsonFlag {
  maxWorkspaces?: number;
  maxContacts?: number;
  importRowCap?: number;
  rateLimit?: number;
}

const planInput = (o: PlanFlags): PlanInput => ({
  maxWorkspaces: o.maxWorkspaces,
  maxContactsPerWorkspace: o.maxContacts,
  importRowCap: o.importRowCap,
  rateLimit: o.rateLimit,
});

abstract class PlanCommand<O extends PlanFlags> extends JsonCommand<O> {
  @Option({ flags: '--max-workspaces <n>', description: 'workspaces the plan allows' })
  parseMaxWorkspaces(v: string): number {
    return parseIntFlag('max-workspaces')(v);
  }
  @Option({ flags: '--max-contacts <n>', description: 'contacts per workspace' })
  parseMaxContacts(v: string): number {
    return parseIntFlag('max-contacts')(v);
  }
  @Option({ flags: '--import-row-cap <n>', description: 'rows one import may carry' })
  parseImportRowCap(v: string): number {
    return parseIntFlag('import-row-cap')(v);
  }
  @Option({ flags: '--rate-limit <n>', description: 'requests per minute for the organization keys' })
  parseRateLimit(v: string): number {
    return parseIntFlag('rate-limit')(v);
  }
}

@Command({ name: 'org:create', description: 'Create an organization and its plan' })
export class OrgCreateCommand extends PlanCommand<PlanFlags & { name?: string }> {
  constructor(private readonly orgs: OrganizationsService) {
    super();
  }

  @Option({ flags: '--name <name>', description: 'organization name', required: true })
  parseName(v: string): string {
    return v;
  }

  protected async execute(_: string[], o: PlanFlags & { name?: string }): Promise<Record<string, unknown>> {
    const org = await this.orgs.create(required(o.name, 'name'), planInput(o));
    return { id: org.id, name: org.name, plan: planOf(org) };
  }
}

@Command({ name: 'plan:set', description: "Change an organization's plan" })
export class PlanSetCommand extends PlanCommand<PlanFlags & { org?: string }> {
  constructor(private readonly orgs: OrganizationsService) {
    super();
  }

  @Option({ flags: '--org <id>', description: 'organization UUID', required: true })
  parseOrg(v: string): string {
    return uuidFlag('org', 'an organization')(v);
  }

  protected override subject(o: PlanFlags & { org?: string }): string {
    return `organization ${o.org}`;
  }

  protected async execute(_: string[], o: PlanFlags & { org?: string }): Promise<Record<string, unknown>> {
    const org = await this.orgs.setPlan(required(o.org, 'org'), planInput(o));
    return { id: org.id, plan: planOf(org) };
  }
}
