import pg from 'pg';
import { isoOfTimestamptz, TIMESTAMPTZ_AS_TEXT } from './timestamps.js';

const viaDate = (text: string): string => (pg.types.getTypeParser(1184)(text) as Date).toISOString();

describe('isoOfTimestamptz', () => {
  it('gives exactly what parsing into a Date and toISOString() give, fast path or not', () => {
    const texts = [
      '2026-01-01 00:00:00+00',
      '2026-01-01 00:00:00.5+00',
      '2026-01-01 00:00:00.05+00',
      '2026-12-31 23:59:59.999+00',
      '1970-01-01 00:00:00.001+00',
      '0001-01-01 00:00:00+00',
      '2024-02-29 12:34:56.78+00',
      // Not the fast path: other session offsets, finer fractions, BC, five-digit years.
      '2026-01-01 01:00:00+01',
      '2026-01-01 05:30:00.25+05:30',
      '2025-12-31 21:00:00-03',
      '2026-01-01 00:00:00.123456+00',
      '2026-01-01 00:00:00.1234+00',
      '0044-03-15 12:00:00+00 BC',
      '10000-01-01 00:00:00+00',
    ];
    for (const text of texts)
      expect({ text, iso: isoOfTimestamptz(text) }).toEqual({ text, iso: viaDate(text) });
  });

  it('agrees with Date on 2,000 random millisecond timestamps across four centuries', () => {
    let seed = 42;
    const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 2000; i++) {
      const ms = Math.floor(random() * 4 * 100 * 365.25 * 86_400_000) - 200 * 365.25 * 86_400_000;
      const iso = new Date(Math.round(ms)).toISOString();
      // PostgreSQL's text: a space for the T, trailing zeros of the fraction dropped, +00 for Z.
      const fraction = iso.slice(20, 23).replace(/0+$/, '');
      const text = `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction ? `.${fraction}` : ''}+00`;
      expect(isoOfTimestamptz(text)).toBe(iso);
    }
  });

  it('TIMESTAMPTZ_AS_TEXT leaves timestamptz as text and parses other types as pg does', () => {
    expect(TIMESTAMPTZ_AS_TEXT.getTypeParser(1184)('2026-01-01 00:00:00+00')).toBe('2026-01-01 00:00:00+00');
    expect(TIMESTAMPTZ_AS_TEXT.getTypeParser(23)('42')).toBe(42);
    expect(TIMESTAMPTZ_AS_TEXT.getTypeParser(3802)('{"a":"b"}')).toEqual({ a: 'b' });
    expect(TIMESTAMPTZ_AS_TEXT.getTypeParser(1114)('2026-01-01 00:00:00')).toBeInstanceOf(Date);
  });
});
