/**
 * The query helper: raw SQL on a test file's DataSource, for setup and for reading what the service
 * wrote. `db` is a getter because files assign their DataSource in `beforeAll`.
 */
import type { DataSource } from 'typeorm';

/** A statement and its parameters; resolves to the driver's rows (what `DataSource.query` returns). */
export type Query = (sql: string, params?: unknown[]) => Promise<unknown>;

export interface Queries {
  /** The driver's answer, untyped (seed statements, updates). */
  q: Query;
  /** Every row. */
  all<T>(sql: string, params?: unknown[]): Promise<T[]>;
  /** The first row (undefined when there is none). */
  one<T>(sql: string, params?: unknown[]): Promise<T>;
}

export function queries(db: () => DataSource): Queries {
  const all = async <T>(sql: string, params?: unknown[]): Promise<T[]> =>
    (await db().query(sql, params)) as T[];
  return {
    q: (sql, params) => db().query(sql, params),
    all,
    one: async <T>(sql: string, params?: unknown[]): Promise<T> => (await all<T>(sql, params))[0],
  };
}
