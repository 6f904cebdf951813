/**
 * `import --workspace UUID --file contacts.csv [--skip-existing] [--json]`: creates the import
 * through the same service as POST /contacts/import (same validation, caps and staging), then runs
 * it inline, chunk by chunk, with the same ImportRunner the workers use, drawing a progress bar on
 * stderr (when it is a terminal) until it finishes. The CLI runs no Bull workers and needs no Redis.
 */
import { Command, Option } from 'nest-commander';
import { JsonCommand, required, type JsonFlag } from '../../../common/cli/json-command.js';
import { ImportRunner, type ImportProgress } from '../import-runner.js';
import type { ImportView } from '../import.view.js';
import { ImportsService } from '../imports.service.js';
import { importFile } from './import-file.js';

interface ImportFlags extends JsonFlag {
  workspace?: string;
  file?: string;
  skipExisting?: boolean;
}

function bar(p: ImportProgress): string {
  const ratio = p.totalRows ? p.processedRows / p.totalRows : 1;
  const width = 30;
  const full = Math.round(ratio * width);
  return (
    `\r[${'#'.repeat(full)}${'-'.repeat(width - full)}] ${Math.floor(ratio * 100)
      .toString()
      .padStart(3)}% ${p.processedRows}/${p.totalRows} rows ` +
    `(created ${p.createdCount}, updated ${p.updatedCount}, skipped ${p.skippedCount}, errors ${p.errorCount})`
  );
}

@Command({
  name: 'import',
  description: 'Import contacts from a CSV file (or a JSON array of contacts) into a workspace',
})
export class ImportCommand extends JsonCommand<ImportFlags> {
  constructor(
    private readonly imports: ImportsService,
    private readonly runner: ImportRunner,
  ) {
    super();
  }

  @Option({ flags: '--workspace <uuid>', description: 'workspace UUID', required: true })
  parseWorkspace(v: string): string {
    return v;
  }

  @Option({
    flags: '--file <path>',
    description: 'CSV file with a header row (.json: an array of contacts)',
    required: true,
  })
  parseFile(v: string): string {
    return v;
  }

  @Option({
    flags: '--skip-existing',
    description: 'leave existing contacts unchanged (update_existing=false)',
  })
  parseSkipExisting(): boolean {
    return true;
  }

  protected async execute(_: string[], o: ImportFlags): Promise<Record<string, unknown>> {
    const tty = process.stderr.isTTY === true;
    const view = await importFile(this.imports, this.runner, {
      workspace: required(o.workspace, 'workspace'),
      file: required(o.file, 'file'),
      updateExisting: !o.skipExisting,
      onProgress: (p) => {
        if (tty) process.stderr.write(bar(p));
      },
    }).finally(() => {
      if (tty) process.stderr.write('\n');
    });
    return view as unknown as Record<string, unknown>;
  }

  protected override text(result: Record<string, unknown>): string {
    const v = result as unknown as ImportView;
    const lines = [
      `import ${v.id} ${v.status}: ${v.processed_rows}/${v.total_rows} rows`,
      `  created ${v.created_count}, updated ${v.updated_count}, skipped ${v.skipped_count}, errors ${v.error_count}`,
      ...v.errors.slice(0, 20).map((e) => `  row ${e.row}: ${e.field}: ${e.message}`),
    ];
    if (v.error_count > 20)
      lines.push(`  ... (${v.error_count - 20} more errors; GET /imports/${v.id} lists 100)`);
    return lines.join('\n');
  }
}
