/**
 * The work of the `import` CLI command, kept free of nest-commander so it can be tested in-process:
 * read the file, create the import through ImportsService (same validation, caps and staging as
 * POST /contacts/import), then run it inline with the same ImportRunner the workers use.
 */
import { constants, createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import { CliError } from '../../../common/cli/cli-error.js';
import { ApiError } from '../../../common/http/api-error.js';
import { isUuid } from '../../../common/http/id-params.js';
import type { ImportProgress, ImportRunner } from '../import-runner.js';
import type { ImportView } from '../import.view.js';
import type { ImportsService } from '../imports.service.js';
import { importBodyItems, type ImportBodyItem } from '../import-body.js';
import { asWorkspaceId } from '../../../common/tenant/workspace-id.js';

export interface ImportFileOptions {
  workspace: string;
  file: string;
  updateExisting: boolean;
  onProgress?: (p: ImportProgress) => void;
}

async function* jsonItems(file: string, settings: ImportBodyItem): AsyncGenerator<ImportBodyItem> {
  // A later update_existing in a {"contacts": [...], "update_existing": ...} file wins over the flag.
  yield settings;
  yield* importBodyItems(createReadStream(file), { rootArray: true });
}

async function* csvItems(file: string, settings: ImportBodyItem): AsyncGenerator<ImportBodyItem> {
  yield settings;
  for await (const text of createReadStream(file, { encoding: 'utf8', highWaterMark: 64 * 1024 })) {
    yield { kind: 'csv', text: text as string };
  }
  yield { kind: 'csv-end' };
}

export async function importFile(
  imports: ImportsService,
  runner: ImportRunner,
  o: ImportFileOptions,
): Promise<ImportView> {
  if (!isUuid(o.workspace)) throw new CliError('--workspace must be a workspace UUID');
  const workspace = asWorkspaceId(o.workspace.toLowerCase());
  try {
    await access(o.file, constants.R_OK);
  } catch (err) {
    throw new CliError(`cannot read ${o.file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  // Streamed like a request body: the file is never held whole (the same row cap and record limits).
  const settings: ImportBodyItem = { kind: 'update_existing', value: o.updateExisting };
  const items = o.file.toLowerCase().endsWith('.json')
    ? jsonItems(o.file, settings)
    : csvItems(o.file, settings);
  let batch: ImportView;
  try {
    batch = await imports.createFromItems(workspace, items, 'cli');
  } catch (err) {
    if (err instanceof ApiError && err.getStatus() === 400) throw new CliError(`${o.file} is not valid JSON`);
    throw err;
  }
  const outcome = await runner.run(batch.id, o.onProgress);
  const view = await imports.show(workspace, batch.id);
  if (outcome === 'interrupted') throw new CliError(`import ${view.id} was interrupted; a worker resumes it`);
  if (view.status === 'failed') {
    throw new CliError(`import ${view.id} failed: ${view.failure_reason ?? 'unknown reason'}`);
  }
  return view;
}
