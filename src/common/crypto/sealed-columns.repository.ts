/**
 * Reading and rewriting the sealed (encrypted) columns of every table for `secrets:reencrypt`, an
 * operator command that spans all workspaces: pages in key order, and compare-and-set updates (a value
 * the service rewrote meanwhile is left alone).
 */
import type { DataSource } from 'typeorm';
import type { SealedColumn } from './sealed-columns.js';

const ident = (name: string): string => `"${name.replace(/"/g, '""')}"`;

export class SealedColumnsRepository {
  constructor(private readonly db: DataSource) {}

  /** Up to `limit` rows with a sealed value, in key order, after the key `after` (null: from the start). */
  async pageAcrossWorkspaces(
    col: SealedColumn,
    after: unknown[] | null,
    limit: number,
  ): Promise<Array<Record<string, string | number>>> {
    const keyList = col.key.map((k) => ident(k.name)).join(', ');
    const sealedCol = ident(col.column);
    const conditions = [`${sealedCol} IS NOT NULL`];
    if (col.live) conditions.push(`(${col.live})`);
    if (after) {
      const placeholders = col.key.map((k, i) => `$${i + 1}::${k.type}`).join(', ');
      conditions.push(`(${keyList}) > (${placeholders})`);
    }
    return (await this.db.query(
      `SELECT ${keyList}, ${sealedCol} AS sealed FROM ${ident(col.table)}
        WHERE ${conditions.join(' AND ')} ORDER BY ${keyList} LIMIT ${limit}`,
      after ?? [],
    )) as Array<Record<string, string | number>>;
  }

  /** Replaces each `old` value by `next` where it is still `old`; how many rows changed. */
  async replaceAcrossWorkspaces(
    col: SealedColumn,
    updates: Array<{ key: Array<string | number>; old: string; next: string }>,
  ): Promise<number> {
    const sealedCol = ident(col.column);
    const n = col.key.length;
    const vars = col.key.map((k, i) => `$${i + 1}::${k.type}[]`).join(', ');
    const cols = col.key.map((_, i) => `k${i}`).join(', ');
    const match = col.key.map((k, i) => `t.${ident(k.name)} = v.k${i}`).join(' AND ');
    const [, affected] = (await this.db.query(
      `UPDATE ${ident(col.table)} t SET ${sealedCol} = v.next
         FROM unnest(${vars}, $${n + 1}::text[], $${n + 2}::text[]) AS v(${cols}, old, next)
        WHERE ${match} AND t.${sealedCol} = v.old`,
      [
        ...col.key.map((_, i) => updates.map((u) => u.key[i])),
        updates.map((u) => u.old),
        updates.map((u) => u.next),
      ],
    )) as [unknown, number];
    return affected;
  }
}
