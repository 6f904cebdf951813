/**
 * The pg pool behind TypeORM's DataSource, for the few hot paths where the ORM's per-call query runner
 * and entity hydration cost more than the query itself (credential lookup, list pages, LISTEN).
 * Same connections, same pool size, same transactions semantics as a plain `pool.query()`.
 */
import type { DataSource } from 'typeorm';

export interface PgClient {
  on(event: 'notification' | 'error', listener: () => void): void;
  query(sql: string): Promise<unknown>;
  release(err?: boolean): void;
}

/** A query with its own type parsers (e.g. TIMESTAMPTZ_AS_TEXT, timestamps.ts). */
export interface PgQueryConfig {
  text: string;
  values?: unknown[];
  types?: { getTypeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown };
}

export interface PgPool {
  query<R = Record<string, unknown>>(sql: string, values?: unknown[]): Promise<{ rows: R[] }>;
  query<R = Record<string, unknown>>(config: PgQueryConfig): Promise<{ rows: R[] }>;
  connect(): Promise<PgClient>;
}

export function pgPool(db: DataSource): PgPool {
  return (db.driver as unknown as { master: PgPool }).master;
}

/**
 * Positional parameters for hand-written SQL: `where('stage = ANY(?)', stages)` numbers each `?` as
 * `$n` in order, so conditions can be added in any combination without counting.
 */
export class SqlConditions {
  readonly conditions: string[] = [];
  readonly params: unknown[] = [];

  where(sql: string, ...values: unknown[]): this {
    let i = 0;
    const numbered = sql.replace(/\?/g, () => {
      if (i >= values.length) throw new Error(`more placeholders than values in: ${sql}`);
      this.params.push(values[i++]);
      return `$${this.params.length}`;
    });
    if (i !== values.length) throw new Error(`more values than placeholders in: ${sql}`);
    this.conditions.push(numbered);
    return this;
  }

  /** `WHERE a AND b …` (or nothing). */
  toSql(): string {
    return this.conditions.length ? `WHERE ${this.conditions.join(' AND ')}` : '';
  }
}
