/**
 * Bulk contact imports (CONTRACT §8): validates the request, stages every row in PostgreSQL in the
 * same transaction as the batch row (so any worker can run or resume it), and reads batches back.
 * Running a batch is ImportRunner's job; enqueueing it is the caller's (controller or CLI).
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Injectable } from '@nestjs/common';
import { from as copyFrom, type CopyStreamQuery } from 'pg-copy-streams';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { ApiError } from '../../common/http/api-error.js';
import { paginate, type Page, type PageQueryDto } from '../../common/http/pagination.js';
import { ImportBatch } from './entities/import-batch.entity.js';
import { capCheck } from './import-runner.js';
import { ImportInputError, readCsv, RowStager } from './import-rows.js';
import { toImportView, type ImportView } from './import-view.js';
import { ImportsRepository } from './imports.repository.js';

export interface ImportInput {
  contacts?: unknown[] | null;
  csv?: string | null;
  update_existing?: boolean | null;
}

/** Staged rows per COPY write. */
const STAGE_BATCH = 2000;

interface PgClientForCopy {
  query(stream: CopyStreamQuery): CopyStreamQuery;
}

interface Plan {
  import_row_cap: number;
  max_contacts_per_workspace: number;
}

@Injectable()
export class ImportsService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly imports: ImportsRepository,
  ) {}

  /**
   * Validates and stages an import; answers the queued batch. 422 when the shape is wrong, the rows
   * exceed the plan's import_row_cap, or the new contacts would pass max_contacts_per_workspace.
   */
  async create(workspaceId: string, input: ImportInput, source: 'api' | 'cli' = 'api'): Promise<ImportView> {
    const hasContacts = input.contacts !== undefined && input.contacts !== null;
    const hasCsv = input.csv !== undefined && input.csv !== null;
    if (hasContacts && hasCsv) throw ApiError.validation('csv', 'Send either contacts or csv, not both');
    if (!hasContacts && !hasCsv) throw ApiError.validation('contacts', 'contacts or csv is required');
    const field = hasContacts ? 'contacts' : 'csv';
    const plan = await this.plan(workspaceId);
    let inputs: unknown[];
    let stager: RowStager;
    try {
      if (hasContacts) {
        const rows = input.contacts!;
        if (!Array.isArray(rows)) throw new ImportInputError('contacts', 'contacts must be an array');
        this.checkRowCap(field, rows.length, plan);
        inputs = rows;
        stager = new RowStager();
      } else {
        const { records, problems } = readCsv(input.csv!);
        this.checkRowCap(field, records.length, plan);
        inputs = records;
        stager = new RowStager(problems);
      }
    } catch (err) {
      if (err instanceof ImportInputError) throw ApiError.validation(err.field, err.message);
      throw err;
    }
    const batch = await this.db.transaction(async (m) => {
      const created = await this.imports.insert(
        workspaceId,
        {
          status: 'queued',
          source,
          updateExisting: input.update_existing ?? true,
          totalRows: inputs.length, // one staged row per input row
        },
        m,
      );
      // Rows are normalised as COPY consumes them: PostgreSQL stores one part while this process
      // normalises the next. The stager's counts are complete once the COPY has ended.
      await this.stage(m, created.id, inputs, stager);
      const { newContacts, room } = await capCheck(m, created.id, workspaceId, 0, stager.valid);
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
  }

  async show(workspaceId: string, id: number): Promise<ImportView> {
    const batch = await this.imports.findOne(workspaceId, { id });
    if (!batch) throw ApiError.notFound('Import');
    return toImportView(batch);
  }

  async list(workspaceId: string, query: PageQueryDto): Promise<Page<ImportBatch>> {
    return paginate(this.imports.query(workspaceId, 'i'), 'i', query, {
      tenant: workspaceId,
      route: 'imports.index',
    });
  }

  /**
   * Imports to (re-)enqueue: at a worker's start every import left queued or processing; in the
   * periodic sweep (`queuedForMs` set) only those still queued that long (their enqueue was lost).
   */
  async unfinished(queuedForMs?: number): Promise<Array<{ id: number; workspaceId: string }>> {
    const rows = (await (queuedForMs === undefined
      ? this.db.query(
          `SELECT id, workspace_id FROM imports WHERE status IN ('queued', 'processing') ORDER BY id`,
        )
      : this.db.query(
          `SELECT id, workspace_id FROM imports
           WHERE status = 'queued' AND created_at < now() - $1 * interval '1 millisecond' ORDER BY id`,
          [queuedForMs],
        ))) as Array<{ id: number; workspace_id: string }>;
    return rows.map((r) => ({ id: r.id, workspaceId: r.workspace_id }));
  }

  /** Marks a batch failed (a job that ran out of attempts); finished batches are left alone. */
  async markFailed(id: number, reason: string): Promise<void> {
    await this.db.query(
      `UPDATE imports SET status = 'failed', failure_reason = $2, finished_at = now()
       WHERE id = $1 AND status IN ('queued', 'processing')`,
      [id, reason],
    );
  }

  private async plan(workspaceId: string): Promise<Plan> {
    const [plan] = (await this.db.query(
      `SELECT o.import_row_cap, o.max_contacts_per_workspace
       FROM workspaces w JOIN organizations o ON o.id = w.organization_id WHERE w.id = $1`,
      [workspaceId],
    )) as Plan[];
    if (!plan) throw ApiError.notFound('Workspace');
    return plan;
  }

  private checkRowCap(field: string, rows: number, plan: Plan): void {
    if (rows === 0) throw new ImportInputError(field, `${field} must contain at least one row`);
    if (rows > plan.import_row_cap) {
      throw new ImportInputError(
        field,
        `${rows} rows exceed the plan's import_row_cap of ${plan.import_row_cap} rows per import`,
      );
    }
  }

  /**
   * Streams the staged rows into import_rows with COPY (pg-copy-streams) on the transaction's own
   * connection: about twice as fast as INSERT … jsonb_array_elements, with no multi-megabyte parameter
   * (bench/imports.mjs). Text format: tab-separated, the JSON with its backslashes doubled (JSON text
   * never holds a raw tab, newline or carriage return, the only other characters COPY treats specially).
   */
  private async stage(
    m: EntityManager,
    importId: number,
    inputs: unknown[],
    stager: RowStager,
  ): Promise<void> {
    const client = (await m.queryRunner!.connect()) as PgClientForCopy;
    const copy = client.query(copyFrom('COPY import_rows (import_id, row_number, data) FROM STDIN'));
    const lines = async function* (): AsyncGenerator<string> {
      for (let i = 0; i < inputs.length; i += STAGE_BATCH) {
        let text = '';
        const end = Math.min(i + STAGE_BATCH, inputs.length);
        for (let r = i; r < end; r += 1) {
          const staged = stager.stage(inputs[r]);
          text += `${importId}\t${r + 1}\t${JSON.stringify(staged).replaceAll('\\', '\\\\')}\n`;
        }
        yield text;
      }
    };
    await pipeline(Readable.from(lines()), copy);
  }
}
