import { Command } from 'nest-commander';
import { JsonCommand, type JsonFlag } from '../../common/cli/json-command.js';
import { runMigrations } from '../migrate.js';

@Command({ name: 'migrate', description: 'Apply pending database migrations' })
export class MigrateCommand extends JsonCommand {
  protected async execute(_: string[], __: JsonFlag): Promise<Record<string, unknown>> {
    return { applied: await runMigrations() };
  }

  protected override text(result: Record<string, unknown>): string {
    const applied = result.applied as string[];
    return applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date';
  }
}
