import pg from 'pg';
import { parseInt8 } from './int8.js';

describe('int8 values', () => {
  it('reads ids and counts as numbers, exactly', () => {
    expect(parseInt8('0')).toBe(0);
    expect(parseInt8('2147483648')).toBe(2147483648);
    expect(parseInt8('-5')).toBe(-5);
    expect(parseInt8(String(Number.MAX_SAFE_INTEGER))).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('keeps a value beyond 2^53 as its exact decimal string instead of rounding it', () => {
    expect(parseInt8('9007199254740993')).toBe('9007199254740993');
  });

  it('is the parser pg uses for int8', () => {
    expect(pg.types.getTypeParser(pg.types.builtins.INT8)).toBe(parseInt8);
  });
});
