import type { EntityManager } from 'typeorm';

/** Rows of a raw query: TypeORM answers UPDATE/DELETE with `[rows, count]` and the rest with `rows`. */
export async function rows<T = Record<string, unknown>>(
  manager: EntityManager,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const result = (await manager.query(sql, params)) as unknown;
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

/** The current UTC day as the SQL expression every counter uses. */
export const UTC_TODAY = `(now() AT TIME ZONE 'UTC')::date`;
