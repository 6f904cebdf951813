import { Command, Option } from 'nest-commander';
import { JsonCommand, required, uuidFlag, type JsonFlag } from '../../../common/cli/json-command.js';
import { WorkspacesService } from '../workspaces.service.js';

interface Flags extends JsonFlag {
  org?: string;
  name?: string;
}

@Command({
  name: 'workspace:create',
  description: 'Create a workspace (same rules as the API, plan cap included)',
})
export class WorkspaceCreateCommand extends JsonCommand<Flags> {
  constructor(private readonly workspaces: WorkspacesService) {
    super();
  }

  @Option({ flags: '--org <id>', description: 'organization UUID', required: true })
  parseOrg(v: string): string {
    return uuidFlag('org', 'an organization')(v);
  }

  protected override subject(o: Flags): string {
    return `organization ${o.org}`;
  }

  @Option({ flags: '--name <name>', description: 'workspace name', required: true })
  parseName(v: string): string {
    return v;
  }

  protected async execute(_: string[], o: Flags): Promise<Record<string, unknown>> {
    const { workspace } = await this.workspaces.create(required(o.org, 'org'), required(o.name, 'name'));
    return { id: workspace.id, name: workspace.name, organization_id: workspace.organizationId };
  }
}
