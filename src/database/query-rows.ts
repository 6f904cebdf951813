import type { EntityManager } from 'typeorm';

/** TypeORM's postgres `query()` answers UPDATE/DELETE with `[rows, count]` and others with `rows`. */
export function rowsOf<T = Record<string, unknown>>(result: unknown): T[] {
  if (
    Array.isArray(result) &&
    result.length === 2 &&
    Array.isArray(result[0]) &&
    typeof result[1] === 'number'
  ) {
    return result[0] as T[];
  }
  return result as T[];
}

/** The rows of a raw query run through `manager`, whatever kind of statement it is. */
export async function rows<T = Record<string, unknown>>(
  manager: EntityManager,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  return rowsOf<T>(await manager.query(sql, params));
}

/** Whether `manager` is bound to an open transaction (functions that must run inside one check it). */
export function inTransaction(manager: EntityManager): boolean {
  return manager.queryRunner?.isTransactionActive === true;
}

/** Transaction control for a step that may be undone alone: `SAVEPOINT name`. */
export async function savepoint(manager: EntityManager, name: string): Promise<void> {
  await manager.query(`SAVEPOINT ${name}`);
}

/** Undoes what ran since `SAVEPOINT name` (the transaction goes on). */
export async function rollbackToSavepoint(manager: EntityManager, name: string): Promise<void> {
  await manager.query(`ROLLBACK TO SAVEPOINT ${name}`);
}
