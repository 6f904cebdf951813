import { QueryFailedError } from 'typeorm';
import { isTransientFailure } from './transient-failure.js';

const pgError = (code: string, message = 'x'): Error => Object.assign(new Error(message), { code });
const typeorm = (code: string): QueryFailedError =>
  new QueryFailedError('SELECT 1', [], pgError(code, `error ${code}`));

describe('isTransientFailure', () => {
  it.each([
    ['57P01', 'terminating connection due to administrator command'],
    ['57014', 'statement timeout / query canceled'],
    ['55P03', 'lock_timeout'],
    ['40001', 'serialization failure'],
    ['40P01', 'deadlock'],
    ['53300', 'too many connections'],
    ['08006', 'connection failure'],
    ['42501', 'insufficient privilege'],
  ])('a PostgreSQL %s (%s) is transient, also wrapped by TypeORM', (code) => {
    expect(isTransientFailure(pgError(code))).toBe(true);
    expect(isTransientFailure(typeorm(code))).toBe(true);
  });

  it.each([
    ['22021', 'invalid byte sequence (a NUL)'],
    ['23505', 'unique violation'],
    ['42P01', 'undefined table'],
    ['22001', 'value too long'],
  ])('a PostgreSQL %s (%s) is permanent for that mail', (code) => {
    expect(isTransientFailure(pgError(code))).toBe(false);
    expect(isTransientFailure(typeorm(code))).toBe(false);
  });

  it('lost connections without a SQLSTATE are transient; bugs and non-errors are not', () => {
    expect(isTransientFailure(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isTransientFailure(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(isTransientFailure(Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isTransientFailure(new TypeError("Cannot read properties of undefined (reading 'x')"))).toBe(
      false,
    );
    expect(isTransientFailure('57P01')).toBe(false);
    expect(isTransientFailure(null)).toBe(false);
  });
});
