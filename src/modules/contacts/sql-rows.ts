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

/** The domain part of an address column in SQL (after the last `@`), matching `emailDomain()`. */
export const sqlDomainOf = (expr: string): string => `regexp_replace(${expr}, '^.*@', '')`;
