import { Readable } from 'node:stream';
import { importBodyItems, type ImportBodyItem } from './import-body.js';
import { ImportInputError } from './import-rows.js';

async function items(body: string | Buffer, rootArray = false, chunk = 0): Promise<ImportBodyItem[]> {
  const buf = Buffer.isBuffer(body) ? body : Buffer.from(body);
  const source = chunk
    ? Readable.from(
        Array.from({ length: Math.ceil(buf.length / chunk) }, (_, i) =>
          buf.subarray(i * chunk, (i + 1) * chunk),
        ),
      )
    : buf;
  const out: ImportBodyItem[] = [];
  for await (const item of importBodyItems(source, { rootArray })) out.push(item);
  return out;
}

const csvText = (list: ImportBodyItem[]): string =>
  list.map((i) => (i.kind === 'csv' ? i.text : '')).join('');

async function failure(body: string, rootArray = false): Promise<{ status?: number; field?: string }> {
  try {
    await items(body, rootArray);
  } catch (err) {
    if (err instanceof ImportInputError) return { status: 422, field: err.field };
    const e = err as { status?: number; field?: string; getStatus?: () => number };
    return { status: e.status ?? e.getStatus?.(), field: e.field };
  }
  throw new Error('expected a failure');
}

describe('import body (streaming JSON)', () => {
  it('emits each contact, the csv text and update_existing, whatever the chunking', async () => {
    const body = JSON.stringify({
      update_existing: false,
      contacts: [{ email: 'a@example.com', custom_fields: { k: 'v' } }, { email: 'b@example.com' }, 7, null],
    });
    for (const chunk of [0, 1, 3, 7]) {
      expect(await items(body, false, chunk)).toEqual([
        { kind: 'update_existing', value: false },
        { kind: 'contacts' },
        { kind: 'contact', value: { email: 'a@example.com', custom_fields: { k: 'v' } } },
        { kind: 'contact', value: { email: 'b@example.com' } },
        { kind: 'contact', value: 7 },
        { kind: 'contact', value: null },
      ]);
    }
    const csv = 'email\n' + 'é@example.com\n😀x@example.com\n'.repeat(2000);
    for (const chunk of [0, 4099, 65]) {
      const list = await items(JSON.stringify({ csv }), false, chunk);
      expect(csvText(list)).toBe(csv);
      expect(list[list.length - 1]).toEqual({ kind: 'csv-end' });
    }
    expect(await items('[{"email":"x@example.com"}]', true)).toEqual([
      { kind: 'contacts' },
      { kind: 'contact', value: { email: 'x@example.com' } },
    ]);
    expect(await items('{"contacts":null,"csv":"email\\n"}')).toEqual([
      { kind: 'csv', text: 'email\n' },
      { kind: 'csv-end' },
    ]);
  });

  it('keeps "__proto__" as a plain own key (as JSON.parse does)', async () => {
    const [, item] = await items('{"contacts":[{"__proto__":{"x":1},"email":"a@example.com"}]}');
    const value = (item as { value: Record<string, unknown> }).value;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__', 'email']);
  });

  it('refuses bad shapes with 422 naming the field, malformed JSON with 400', async () => {
    expect(await failure('[]')).toMatchObject({ status: 422, field: 'body' });
    expect(await failure('')).toMatchObject({ status: 422, field: 'body' });
    expect(await failure('{"contacts":"x"}')).toMatchObject({ status: 422, field: 'contacts' });
    expect(await failure('{"csv":1}')).toMatchObject({ status: 422, field: 'csv' });
    expect(await failure('{"update_existing":"yes"}')).toMatchObject({
      status: 422,
      field: 'update_existing',
    });
    expect(await failure('{"workspace_id":"x"}')).toMatchObject({ status: 422, field: 'workspace_id' });
    expect(await failure('{"contacts":[{}]')).toMatchObject({ status: 400 });
    expect(await failure('{"contacts":[{}]} x')).toMatchObject({ status: 400 });
    expect(await failure('{"contacts":[' + '['.repeat(40) + ']'.repeat(40) + ']}')).toMatchObject({
      status: 400,
    });
    expect(await failure('{"\\ud800":1}')).toMatchObject({ status: 400 });
    const big = JSON.stringify({
      contacts: [{ email: 'a@example.com', custom_fields: { k: 'x'.repeat(70_000), l: 'y' } }],
    });
    expect(await failure(big)).toMatchObject({ status: 422, field: 'contacts' });
  });
});
