import {
  canonicalTimezone,
  customFieldsProblem,
  isRealDate,
  isValidEmail,
  normalizeEmail,
  parseTimestamp,
} from './contact-fields.js';
import { parseStageList } from './dto/list-contacts-query.dto.js';

describe('contact field rules', () => {
  it('normalises and validates emails', () => {
    expect(normalizeEmail('  Ada@Example.COM ')).toBe('ada@example.com');
    expect(normalizeEmail(5)).toBe(5);
    expect(isValidEmail('ada@example.com')).toBe(true);
    for (const bad of [
      '',
      'ada',
      'ada@',
      '@example.com',
      'ada@localhost',
      'ada@[127.0.0.1]',
      'a b@example.com',
      7,
    ]) {
      expect({ bad, ok: isValidEmail(bad) }).toEqual({ bad, ok: false });
    }
    expect(isValidEmail(`${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(60)}.com`)).toBe(
      false,
    );
  });

  it('accepts IANA zones as their canonical name (case and links resolved), refuses offsets and junk', () => {
    expect(canonicalTimezone('Europe/Berlin')).toBe('Europe/Berlin');
    expect(canonicalTimezone('america/new_york')).toBe('America/New_York');
    expect(canonicalTimezone('UTC')).toBe('UTC');
    expect(canonicalTimezone('etc/utc')).toBe('UTC');
    expect(canonicalTimezone('Asia/Kolkata')).toBe('Asia/Kolkata');
    expect(canonicalTimezone('Asia/Calcutta')).toBe('Asia/Kolkata');
    expect(canonicalTimezone('US/Eastern')).toBe('America/New_York');
    expect(canonicalTimezone('uS/EaStErN')).toBe('America/New_York');
    expect(canonicalTimezone('europe/kiev')).toBe('Europe/Kyiv');
    for (const bad of ['+01:00', 'Mars/Olympus', '', 'Europe/../etc', 'x'.repeat(65), 3, null]) {
      expect({ bad, tz: canonicalTimezone(bad) }).toEqual({ bad, tz: undefined });
    }
  });

  it('checks custom_fields shape and limits', () => {
    expect(customFieldsProblem({ a: 'x', b: null })).toBeUndefined();
    expect(customFieldsProblem({})).toBeUndefined();
    expect(customFieldsProblem(null)).toMatch(/object/);
    expect(customFieldsProblem(['a'])).toMatch(/object/);
    expect(customFieldsProblem({ a: 1 })).toMatch(/custom_fields\.a/);
    expect(customFieldsProblem({ a: { b: 'c' } })).toMatch(/custom_fields\.a/);
    expect(customFieldsProblem({ '': 'x' })).toMatch(/keys/);
    expect(customFieldsProblem({ 'a\nb': 'x' })).toMatch(/keys/);
    expect(customFieldsProblem({ a: 'x'.repeat(2001) })).toMatch(/2000/);
    const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v']));
    expect(customFieldsProblem(fifty)).toBeUndefined();
    expect(customFieldsProblem({ ...fifty, one: 'more' })).toMatch(/50/);
  });

  it('parses filter timestamps strictly', () => {
    expect(parseTimestamp('2026-03-01')?.toISOString()).toBe('2026-03-01T00:00:00.000Z');
    expect(parseTimestamp('2026-03-01T10:20:30.123Z')?.toISOString()).toBe('2026-03-01T10:20:30.123Z');
    expect(parseTimestamp('2026-03-01T10:20:30+02:00')?.toISOString()).toBe('2026-03-01T08:20:30.000Z');
    expect(parseTimestamp('2026-03-01T10:20+0200')?.toISOString()).toBe('2026-03-01T08:20:00.000Z');
    for (const bad of [
      '2026-02-30',
      '2026-13-01',
      '2026-03-01T10:20',
      '2026-03-01T24:00:00Z',
      '0000-01-01',
      'yesterday',
      '1700000000',
      '',
      undefined,
    ]) {
      expect({ bad, parsed: parseTimestamp(bad) }).toEqual({ bad, parsed: undefined });
    }
    expect(isRealDate(2024, 2, 29)).toBe(true);
    expect(isRealDate(2025, 2, 29)).toBe(false);
    expect(isRealDate(2025, 4, 31)).toBe(false);
  });

  it('parses stage lists', () => {
    expect(parseStageList('new')).toEqual(['new']);
    expect(parseStageList('new, replied,new')).toEqual(['new', 'replied']);
    for (const bad of ['', 'new,', 'won', 'NEW', undefined, ['new']]) {
      expect({ bad, parsed: parseStageList(bad) }).toEqual({ bad, parsed: undefined });
    }
  });
});
