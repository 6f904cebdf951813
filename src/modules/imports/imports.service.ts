/**
 * Bulk contact imports: validates the request, stages every row in PostgreSQL in the
 * same transaction as the batch row (so any worker can run or resume it), and reads batches back.
 * Running a batch is ImportRunner's job; enqueueing it is the caller's (controller or CLI).
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ApiError } from '../../common/http/api-error.js';
import type { Page, PageQueryDto } from '../../common/http/pagination.js';
import { ImportBatch } from './entities/import-batch.entity.js';
import { ImportRowsRepository, type ImportPlan as Plan } from './import-rows.repository.js';
import type { ImportBodyItem } from './import-body.js';
import { CsvReader, ImportInputError, RowStager, type CsvRow, type RowProblem } from './import-rows.js';
import { toImportView, type ImportView } from './import.view.js';
import { ImportsRepository } from './imports.repository.js';
import { asWorkspaceId, type WorkspaceId } from '../../common/tenant/workspace-id.js';

export interface ImportInput {
  contacts?: unknown[] | null;
  csv?: string | null;
  update_existing?: boolean | null;
}

/** Staged rows per COPY write. */
const STAGE_BATCH = 2000;
/** Characters of an object's csv string handed to the CSV reader at a time. */
const CSV_PIECE = 64 * 1024;

@Injectable()
export class ImportsService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly imports: ImportsRepository,
    private readonly rows: ImportRowsRepository,
  ) {}

  /**
   * Validates and stages an import given as an object (the CLI's and tests' form); answers the
   * queued batch. The same path as a request body: see createFromItems.
   */
  async create(
    workspaceId: WorkspaceId,
    input: ImportInput,
    source: 'api' | 'cli' = 'api',
  ): Promise<ImportView> {
    return this.createFromItems(workspaceId, itemsOfInput(input), source);
  }

  /**
   * Validates and stages an import read item by item from its JSON body (importBodyItems), and
   * answers the queued batch. Rows are normalised and COPYed into import_rows as they are parsed,
   * 2,000 at a time, in the same transaction as the batch row: a request refused halfway (row cap,
   * a bad CSV record, malformed JSON, the contact cap) rolls everything back and leaves nothing.
   * 422 when the shape is wrong, the rows pass the plan's import_row_cap (decided at row cap + 1,
   * without reading further), or the new contacts would pass max_contacts_per_workspace.
   */
  async createFromItems(
    workspaceId: WorkspaceId,
    items: AsyncIterable<ImportBodyItem>,
    source: 'api' | 'cli' = 'api',
  ): Promise<ImportView> {
    const plan = await this.plan(workspaceId);
    try {
      const batch = await this.db.transaction(async (m) => {
        const created = await this.imports.insert(
          workspaceId,
          { status: 'queued', source, updateExisting: true, totalRows: 0 },
          m,
        );
        const run = new StagingRun(items, plan.import_row_cap);
        await this.rows.copyStagedRows(workspaceId, run.lines(created.id), m);
        const field = run.field();
        if (run.rows === 0) throw new ImportInputError(field, `${field} must contain at least one row`);
        created.totalRows = run.rows; // one staged row per input row
        created.updateExisting = run.updateExisting;
        await this.rows.setTotals(workspaceId, created.id, created.totalRows, created.updateExisting, m);
        const { newContacts, room } = await this.rows.capCheck(
          workspaceId,
          created.id,
          0,
          run.stager.valid,
          m,
        );
        if (newContacts > room) {
          throw ApiError.validation(
            field,
            `The import would add ${newContacts} new contacts but the workspace has room for ${Math.max(0, room)} ` +
              `(plan max_contacts_per_workspace ${plan.max_contacts_per_workspace})`,
          );
        }
        return created;
      });
      return toImportView(batch);
    } catch (err) {
      if (err instanceof ImportInputError) throw ApiError.validation(err.field, err.message);
      throw err;
    }
  }

  async show(workspaceId: WorkspaceId, id: number): Promise<ImportView> {
    const batch = await this.imports.findOne(workspaceId, { id });
    if (!batch) throw ApiError.notFound('Import');
    return toImportView(batch);
  }

  async list(workspaceId: WorkspaceId, query: PageQueryDto): Promise<Page<ImportBatch>> {
    return this.imports.page(workspaceId, query);
  }

  /**
   * Imports to (re-)enqueue: at a worker's start every import left queued or processing; in the
   * periodic sweep (`queuedForMs` set) only those still queued that long (their enqueue was lost).
   */
  async unfinished(queuedForMs?: number): Promise<Array<{ id: number; workspaceId: WorkspaceId }>> {
    const rows = await this.rows.unfinishedAcrossWorkspaces(queuedForMs);
    return rows.map((r) => ({ id: r.id, workspaceId: asWorkspaceId(r.workspace_id) }));
  }

  /**
   * Deletes one batch of staged rows of finished imports (a failed import leaves its rows; a completed
   * one deletes them chunk by chunk). True when the batch was full.
   */
  async sweepStagedRows(batch = 5000): Promise<boolean> {
    return (await this.rows.deleteStagedOfFinishedAcrossWorkspaces(batch)) >= batch;
  }

  /** Marks a batch failed (a job that ran out of attempts); finished batches are left alone. */
  async markFailed(id: number, reason: string): Promise<void> {
    await this.rows.markFailedAcrossWorkspaces(id, reason);
  }

  private async plan(workspaceId: WorkspaceId): Promise<Plan> {
    const plan = await this.rows.planOf(workspaceId);
    if (!plan) throw ApiError.notFound('Workspace');
    return plan;
  }
}

/** An ImportInput object as the items its JSON body would give (same checks as the body parser). */
export async function* itemsOfInput(input: ImportInput): AsyncGenerator<ImportBodyItem> {
  const hasContacts = input.contacts !== undefined && input.contacts !== null;
  const hasCsv = input.csv !== undefined && input.csv !== null;
  if (hasContacts && !Array.isArray(input.contacts)) {
    throw new ImportInputError('contacts', 'contacts must be an array');
  }
  if (hasCsv && typeof input.csv !== 'string') throw new ImportInputError('csv', 'csv must be a string');
  if (input.update_existing !== undefined && input.update_existing !== null) {
    yield { kind: 'update_existing', value: input.update_existing };
  }
  if (hasContacts) {
    yield { kind: 'contacts' };
    for (const value of input.contacts!) yield { kind: 'contact', value };
  }
  if (hasCsv) {
    const csv = input.csv!;
    let i = 0;
    while (i < csv.length) {
      let end = Math.min(i + CSV_PIECE, csv.length);
      const last = csv.charCodeAt(end - 1);
      if (end < csv.length && last >= 0xd800 && last <= 0xdbff) end += 1; // never half a pair
      yield { kind: 'csv', text: csv.slice(i, end) };
      i = end;
    }
    yield { kind: 'csv-end' };
  }
}

/**
 * One request's rows on their way to import_rows: normalises each row (RowStager), counts them
 * against the plan's import_row_cap (stopping at cap + 1), and renders COPY text 2,000 rows at a time.
 */
class StagingRun {
  readonly stager = new RowStager();
  rows = 0;
  updateExisting = true;
  private kind?: 'contacts' | 'csv';
  private csv?: CsvReader;

  constructor(
    private readonly items: AsyncIterable<ImportBodyItem>,
    private readonly cap: number,
  ) {}

  /** The field a request-level problem names. */
  field(): 'contacts' | 'csv' {
    if (!this.kind) throw new ImportInputError('contacts', 'contacts or csv is required');
    return this.kind;
  }

  private use(kind: 'contacts' | 'csv'): void {
    if (this.kind && this.kind !== kind)
      throw new ImportInputError('csv', 'Send either contacts or csv, not both');
    this.kind = kind;
  }

  async *lines(importId: number): AsyncGenerator<string> {
    let text = '';
    let pending = 0;
    const add = (input: unknown, problem?: RowProblem): void => {
      this.rows += 1;
      if (this.rows > this.cap) {
        const field = this.field();
        throw new ImportInputError(
          field,
          `${field} has more than ${this.cap} rows: the plan's import_row_cap is ${this.cap} rows per import`,
        );
      }
      const staged = this.stager.stage(input, problem);
      text += `${importId}\t${this.rows}\t${JSON.stringify(staged).replaceAll('\\', '\\\\')}\n`;
      pending += 1;
    };
    const addCsv = (rows: CsvRow[]): void => {
      for (const row of rows) {
        if ('problem' in row) add({}, row.problem);
        else add(row.record);
      }
    };
    for await (const item of this.items) {
      switch (item.kind) {
        case 'contacts':
          this.use('contacts');
          break;
        case 'contact':
          this.use('contacts');
          add(item.value);
          break;
        case 'csv':
          this.use('csv');
          this.csv ??= new CsvReader();
          addCsv(this.csv.write(item.text));
          break;
        case 'csv-end':
          this.use('csv');
          addCsv((this.csv ?? new CsvReader()).end());
          break;
        case 'update_existing':
          this.updateExisting = item.value;
          break;
      }
      if (pending >= STAGE_BATCH) {
        yield text;
        text = '';
        pending = 0;
      }
    }
    if (text) yield text;
    this.field(); // neither contacts nor csv → 422
  }
}
