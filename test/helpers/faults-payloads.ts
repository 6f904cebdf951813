/** Hostile request bodies for the fault suite (docs/trust/README.md "No request is parsed before ..."). */
import { gzipSync } from 'node:zlib';

export const MiB = 1024 * 1024;

/**
 * `{"contacts":[{},{},…]}` of exactly `size` bytes (whitespace pads the end): the cheapest JSON
 * to send and, parsed, one heap object per 3 bytes.
 */
export function emptyObjectsJson(size: number): Buffer {
  const head = '{"contacts":[';
  const tail = ']}';
  const k = Math.floor((size - head.length - tail.length + 1) / 3);
  const buf = Buffer.alloc(size, ' ');
  const o = buf.write(head, 0) + buf.write('{}', head.length);
  buf.fill(',{}', o, o + 3 * (k - 1));
  buf.write(tail, size - tail.length);
  return buf;
}

/** A gzip body that inflates to `emptyObjectsJson(inflatedSize)` (about 1,000:1). */
export function gzipBomb(inflatedSize: number): Buffer {
  return gzipSync(emptyObjectsJson(inflatedSize), { level: 9 });
}

/**
 * `{"csv":"email\na\na\n…"}` of at most `size` bytes: a CSV of one column whose records are one
 * byte each (three bytes in JSON), i.e. about size/3 data rows.
 */
export function tinyRecordsCsvJson(size: number): Buffer {
  const head = '{"csv":"email\\n';
  const tail = '"}';
  const k = Math.floor((size - head.length - tail.length) / 3);
  const buf = Buffer.alloc(head.length + 3 * k + tail.length);
  const o = buf.write(head, 0);
  buf.fill('a\\n', o, o + 3 * k);
  buf.write(tail, o + 3 * k);
  return buf;
}
