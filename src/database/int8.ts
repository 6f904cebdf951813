/**
 * PostgreSQL `bigint` (int8) values arrive from pg as strings by default, because they can exceed
 * JavaScript's exact integer range. This service's bigint values are identifiers and counts, which
 * stay far below 2^53 (9 quadrillion), so they are read as numbers: ids stay JSON integers in the
 * API. A value beyond the exact range is left as its decimal string rather than silently rounded.
 * Imported for its effect by the data source, the one entry to the database.
 */
import pg from 'pg';

export function parseInt8(text: string): number | string {
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : text;
}

pg.types.setTypeParser(pg.types.builtins.INT8, parseInt8);
