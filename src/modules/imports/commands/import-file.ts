/**
 * The work of the `import` CLI command, kept free of nest-commander so it can be tested in-process:
 * read the file, create the import through ImportsService (same validation, caps and staging as
 * POST /contacts/import), then run it inline with the same ImportRunner the workers use.
 */
import { readFile } from 'node:fs/promises';
import { isUuid } from '../../../common/http/id-params.js';
import type { ImportProgress, ImportRunner } from '../import-runner.js';
import type { ImportView } from '../import-view.js';
import type { ImportInput, ImportsService } from '../imports.service.js';

/** A one-line failure reason for the CLI (printed on stderr, exit 1). */
export class CliError extends Error {}

export interface ImportFileOptions {
  workspace: string;
  file: string;
  updateExisting: boolean;
  onProgress?: (p: ImportProgress) => void;
}

export async function importFile(
  imports: ImportsService,
  runner: ImportRunner,
  o: ImportFileOptions,
): Promise<ImportView> {
  if (!isUuid(o.workspace)) throw new CliError('--workspace must be a workspace UUID');
  const workspace = o.workspace.toLowerCase();
  let text: string;
  try {
    text = await readFile(o.file, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read ${o.file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  const input: ImportInput = { update_existing: o.updateExisting };
  if (o.file.toLowerCase().endsWith('.json')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new CliError(`${o.file} is not valid JSON`);
    }
    const rows = Array.isArray(parsed) ? parsed : (parsed as { contacts?: unknown } | null)?.contacts;
    if (!Array.isArray(rows))
      throw new CliError(`${o.file} must hold an array of contacts or {"contacts": [...]}`);
    input.contacts = rows;
  } else {
    input.csv = text;
  }
  const batch = await imports.create(workspace, input, 'cli');
  const outcome = await runner.run(batch.id, o.onProgress);
  const view = await imports.show(workspace, batch.id);
  if (outcome === 'interrupted') throw new CliError(`import ${view.id} was interrupted; a worker resumes it`);
  if (view.status === 'failed') {
    throw new CliError(`import ${view.id} failed: ${view.failure_reason ?? 'unknown reason'}`);
  }
  return view;
}
