/**
 * `secrets:reencrypt`: rewrites every sealed value (SEALED_COLUMNS) that is not yet under the newest
 * key of ENCRYPTION_KEYS, or is still a legacy v1 value without associated data, as a v2 value bound
 * to its row. Batches of BATCH rows in key order, one UPDATE per batch that writes a value only if it
 * is still the one read (compare-and-set: a secret rotated or an inbox reconnected meanwhile is left
 * as the service wrote it). Idempotent: a second run finds nothing to do; a run cut short is simply
 * run again. Every value is opened (current ones too), so one that does not open (moved from another
 * row, tampered, or under a key no longer configured) is counted under `failed` (with its row) and
 * left unchanged.
 */
import { InjectDataSource } from '@nestjs/typeorm';
import { Command } from 'nest-commander';
import type { DataSource } from 'typeorm';
import { JsonCommand, type JsonFlag } from '../../cli/json-command.js';
import { currentKeyId, needsReseal, seal, sealedAt, unseal } from '../crypto.js';
import { SealedColumnsRepository } from '../sealed-columns.repository.js';
import { rowName, SEALED_COLUMNS, type SealedColumn } from '../sealed-columns.js';

export const REENCRYPT_BATCH = 500;
/** At most this many failed rows are listed (all are counted). */
const FAILED_ROWS_SHOWN = 50;

type Counts = Record<string, number>;

export interface ReencryptResult {
  key_id: string;
  reencrypted: Counts;
  unchanged: Counts;
  /** Written by the service between this command's read and write (already current; not touched). */
  changed_meanwhile: Counts;
  failed: Counts;
  failed_rows: Array<{ column: string; row: string; reason: string }>;
}

export async function reencryptSecrets(db: DataSource): Promise<ReencryptResult> {
  const result: ReencryptResult = {
    key_id: currentKeyId(),
    reencrypted: {},
    unchanged: {},
    changed_meanwhile: {},
    failed: {},
    failed_rows: [],
  };
  for (const col of SEALED_COLUMNS) await reencryptColumn(db, col, result);
  return result;
}

async function reencryptColumn(db: DataSource, col: SealedColumn, result: ReencryptResult): Promise<void> {
  const name = `${col.table}.${col.column}`;
  for (const counts of [result.reencrypted, result.unchanged, result.changed_meanwhile, result.failed]) {
    counts[name] = 0;
  }
  const sealedRows = new SealedColumnsRepository(db);
  let after: unknown[] | null = null;
  for (;;) {
    const rows = await sealedRows.pageAcrossWorkspaces(col, after, REENCRYPT_BATCH);
    if (!rows.length) break;
    const updates: Array<{ key: Array<string | number>; old: string; next: string }> = [];
    for (const row of rows) {
      const key = col.key.map((k) => row[k.name]);
      const sealed = String(row.sealed);
      const at = sealedAt(col.table, col.column, rowName(key));
      try {
        // Every value is opened, current ones too: one moved from another row shows up as failed.
        const plaintext = unseal(sealed, at);
        if (needsReseal(sealed)) updates.push({ key, old: sealed, next: seal(plaintext, at) });
        else result.unchanged[name] += 1;
      } catch (err) {
        result.failed[name] += 1;
        if (result.failed_rows.length < FAILED_ROWS_SHOWN) {
          result.failed_rows.push({ column: name, row: rowName(key), reason: (err as Error).message });
        }
      }
    }
    if (updates.length) {
      const affected = await sealedRows.replaceAcrossWorkspaces(col, updates);
      result.reencrypted[name] += affected;
      result.changed_meanwhile[name] += updates.length - affected;
    }
    const last = rows[rows.length - 1];
    after = col.key.map((k) => last[k.name]);
    if (rows.length < REENCRYPT_BATCH) break;
  }
}

@Command({
  name: 'secrets:reencrypt',
  description:
    'Re-encrypt every sealed value under the newest key of ENCRYPTION_KEYS, bound to its row (idempotent)',
})
export class SecretsReencryptCommand extends JsonCommand {
  constructor(@InjectDataSource() private readonly db: DataSource) {
    super();
  }

  protected async execute(_: string[], __: JsonFlag): Promise<Record<string, unknown>> {
    return { ...(await reencryptSecrets(this.db)) };
  }

  protected override text(result: Record<string, unknown>): string {
    const r = result as unknown as ReencryptResult;
    const lines = [`newest key: ${r.key_id}`];
    for (const name of Object.keys(r.reencrypted)) {
      lines.push(
        `${name}: ${r.reencrypted[name]} re-encrypted, ${r.unchanged[name]} already current, ` +
          `${r.changed_meanwhile[name]} changed meanwhile, ${r.failed[name]} failed`,
      );
    }
    for (const f of r.failed_rows) lines.push(`failed: ${f.column} row ${f.row}: ${f.reason}`);
    return lines.join('\n');
  }
}
