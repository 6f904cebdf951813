import { SqlConditions } from './pg-pool.js';

describe('SqlConditions', () => {
  it('numbers placeholders across conditions in the order values are given', () => {
    const w = new SqlConditions()
      .where('workspace_id = ?', 'ws')
      .where('suppression_reason IS NULL')
      .where('(created_at, id) < (?::timestamptz, ?)', '2026-01-01T00:00:00.000Z', 7);
    expect(w.toSql()).toBe(
      'WHERE workspace_id = $1 AND suppression_reason IS NULL AND (created_at, id) < ($2::timestamptz, $3)',
    );
    expect(w.params).toEqual(['ws', '2026-01-01T00:00:00.000Z', 7]);
  });

  it('is empty without conditions', () => {
    expect(new SqlConditions().toSql()).toBe('');
  });

  it('refuses a count mismatch rather than shifting parameters', () => {
    expect(() => new SqlConditions().where('a = ? AND b = ?', 1)).toThrow(/placeholders than values/);
    expect(() => new SqlConditions().where('a = ?', 1, 2)).toThrow(/values than placeholders/);
  });
});
