import { isEmail } from 'class-validator';
import {
  CsvReader,
  ImportInputError,
  isValidEmail,
  normaliseContact,
  readCsv,
  stageRows,
} from './import-rows.js';

describe('import rows', () => {
  it('accepts exactly the addresses isEmail accepts (the fast path is a strict subset)', () => {
    const samples = [
      'ada@example.com',
      'a.b+tag@sub.example.co.uk',
      "o'brien@example.ie",
      'x_y-z@ex-ample.com',
      '1@2.io',
      'a@b.c',
      'a@b',
      'a..b@example.com',
      '.a@example.com',
      'a.@example.com',
      'a@-example.com',
      'a@example-.com',
      'a@example.123',
      'a@exa_mple.com',
      'a@127.0.0.1',
      'a@[127.0.0.1]',
      '"quoted local"@example.com',
      'ünï@exämple.com',
      'a@xn--exmple-cua.com',
      `${'a'.repeat(64)}@example.com`,
      `${'a'.repeat(65)}@example.com`,
      `a@${'b'.repeat(63)}.com`,
      `a@${'b'.repeat(64)}.com`,
      `a@${'abcdefghi.'.repeat(25)}com`,
      'a b@example.com',
      'a@b@example.com',
      'display <a@example.com>',
      'a@example.com.',
      'a@example.c0m',
      '{}|~`@example.museum',
    ];
    const opts = { require_tld: true, allow_display_name: false, allow_ip_domain: false };
    for (const s of samples) {
      expect([s, isValidEmail(s)]).toEqual([s, s.length <= 254 && isEmail(s, opts)]);
    }
  });

  it('normalises a contact: email trimmed and lower-cased, zone case-corrected, unknown keys refused', () => {
    expect(
      normaliseContact({
        email: '  Ada@Example.COM ',
        first_name: 'Ada',
        timezone: 'europe/paris',
        custom_fields: { a: '1', gone: null },
      }),
    ).toEqual({
      email: 'ada@example.com',
      first_name: 'Ada',
      timezone: 'Europe/Paris',
      custom_fields: { a: '1', gone: null },
    });
    expect(() => normaliseContact({ email: 'a@example.com', nick: 'x' })).toThrow(
      'nick is not a recognised field',
    );
    expect(() => normaliseContact({ email: 'a@example.com', timezone: '+01:00' })).toThrow('IANA');
    expect(() => normaliseContact({ email: 'a@example.com', stage: 'won' })).toThrow('stage');
    expect(() => normaliseContact({ email: 'a@example.com', phone: '1'.repeat(65) })).toThrow('64');
    const fifty = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));
    expect(() => normaliseContact({ email: 'a@example.com', custom_fields: fifty })).toThrow('50');
  });

  it('marks repeated addresses after their first valid row, and lists invalid rows', () => {
    const staged = stageRows([
      { email: 'bad' },
      { email: 'A@example.com' },
      { email: 'a@example.com ' },
      { email: 'b@example.com' },
    ]);
    expect(staged.rows).toEqual([
      { _error: { field: 'email', message: expect.any(String) } },
      { email: 'a@example.com' },
      { _dup: true },
      { email: 'b@example.com' },
    ]);
    expect([staged.valid, staged.invalid, staged.duplicates]).toEqual([2, 1, 1]);
  });

  it('maps CSV headers to contact fields and other columns to custom_fields; empty cells are absent', () => {
    const rows = readCsv(
      '\ufeffE-mail,First Name,Company,custom_fields.tier,Plan\r\nada@example.com,Ada,,gold,pro\r\n\r\nbob@example.com,"Bob, Jr.",Acme,,\r\nx\r\n',
    );
    expect(rows).toEqual([
      {
        record: { email: 'ada@example.com', first_name: 'Ada', custom_fields: { tier: 'gold', Plan: 'pro' } },
      },
      { record: { email: 'bob@example.com', first_name: 'Bob, Jr.', company: 'Acme' } },
      { problem: { field: 'row', message: expect.stringContaining('1 columns') } },
    ]);
    expect(() => readCsv('name\nAda')).toThrow(ImportInputError);
    expect(() => readCsv('email,EMAIL\na,b')).toThrow('more than once');
    expect(() => readCsv('email,"oops\na')).toThrow('could not be parsed');
  });

  it('reads CSV piece by piece: rows come out as soon as they are complete, whatever the cut', () => {
    const text = 'email,name\nada@example.com,"Ada\nLovelace"\nbob@example.com,Bob\n';
    for (let cut = 1; cut < text.length; cut += 1) {
      const reader = new CsvReader();
      const rows = [...reader.write(text.slice(0, cut)), ...reader.write(text.slice(cut)), ...reader.end()];
      expect(rows).toEqual([
        { record: { email: 'ada@example.com', custom_fields: { name: 'Ada\nLovelace' } } },
        { record: { email: 'bob@example.com', custom_fields: { name: 'Bob' } } },
      ]);
    }
    const reader = new CsvReader();
    expect(reader.write('email\n')).toEqual([]);
    expect(reader.write('a@example.com\nb@exa')).toEqual([{ record: { email: 'a@example.com' } }]);
  });

  it('refuses a CSV record over 64 KiB naming its line, and a CSV without a header', () => {
    const reader = new CsvReader();
    reader.write('email,note\na@example.com,short\n');
    expect(() => reader.write(`b@example.com,${'x'.repeat(70_000)}\n`)).toThrow(/line 3 .*64 KiB/);
    expect(() => new CsvReader().end()).toThrow('header');
    expect(() => readCsv('\n\n')).toThrow('header');
  });
});
