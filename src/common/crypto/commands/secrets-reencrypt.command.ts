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

const ident = (name: string): string => `"${name.replace(/"/g, '""')}"`;

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
  const keys = col.key.map((k) => ident(k.name));
  const keyList = keys.join(', ');
  const sealedCol = ident(col.column);
  let after: unknown[] | null = null;
  for (;;) {
    const conditions = [`${sealedCol} IS NOT NULL`];
    if (col.live) conditions.push(`(${col.live})`);
    if (after) {
      const placeholders = col.key.map((k, i) => `$${i + 1}::${k.type}`).join(', ');
      conditions.push(`(${keyList}) > (${placeholders})`);
    }
    const rows = (await db.query(
      `SELECT ${keyList}, ${sealedCol} AS sealed FROM ${ident(col.table)}
        WHERE ${conditions.join(' AND ')} ORDER BY ${keyList} LIMIT ${REENCRYPT_BATCH}`,
      after ?? [],
    )) as Array<Record<string, string | number>>;
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
      const n = col.key.length;
      const vars = col.key.map((k, i) => `$${i + 1}::${k.type}[]`).join(', ');
      const cols = col.key.map((_, i) => `k${i}`).join(', ');
      const match = col.key.map((k, i) => `t.${ident(k.name)} = v.k${i}`).join(' AND ');
      const [, affected] = (await db.query(
        `UPDATE ${ident(col.table)} t SET ${sealedCol} = v.next
           FROM unnest(${vars}, $${n + 1}::text[], $${n + 2}::text[]) AS v(${cols}, old, next)
          WHERE ${match} AND t.${sealedCol} = v.old`,
        [
          ...col.key.map((_, i) => updates.map((u) => u.key[i])),
          updates.map((u) => u.old),
          updates.map((u) => u.next),
        ],
      )) as [unknown, number];
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
