/**
 * Streaming parse of the import request body: the bytes go through a JSON tokenizer
 * (@streamparser/json) in 64 KiB slices and come out as items, one contact (or one piece of the
 * `csv` string) at a time, so the body never becomes one big tree of JavaScript objects. Whoever
 * consumes the items stages them and stops at the plan's row cap; nothing ahead of the current
 * slice is ever materialised.
 *
 * The top level is checked with the same rules the DTO had: exactly the keys `contacts` (array or
 * null), `csv` (string or null) and `update_existing` (boolean or null); any other key → 422 naming it.
 * A contact is built as a plain value (at most MAX_CONTACT_BYTES of JSON, nested at most
 * MAX_DEPTH deep); its fields are checked later, row by row (a bad row is a row error).
 */
import type { Readable } from 'node:stream';
import { Tokenizer, TokenType, type ParsedTokenInfo } from '@streamparser/json';
import { ApiError } from '../../common/http/api-error.js';
import { ImportInputError, isStorable } from './import-rows.js';

export type ImportBodyItem =
  /** The contacts array starts (its elements follow as `contact` items). */
  | { kind: 'contacts' }
  | { kind: 'contact'; value: unknown }
  /** The next piece of the `csv` string (in order; `csv-end` follows the last one). */
  | { kind: 'csv'; text: string }
  | { kind: 'csv-end' }
  | { kind: 'update_existing'; value: boolean };

/** One contact object of the JSON form may not be larger than this (bytes of JSON). */
export const MAX_CONTACT_BYTES = 64 * 1024;
/** The deepest nesting any route accepts (the same bound as the HTTP edge's). */
const MAX_DEPTH = 32;
const SLICE = 64 * 1024;

const TOP_LEVEL = new Set(['contacts', 'csv', 'update_existing']);

const malformed = (detail: string): ApiError =>
  new ApiError(400, 'invalid_request', `The request body is not valid JSON: ${detail.slice(0, 200)}`);

type Container = { obj: Record<string, unknown>; key?: string } | { arr: unknown[] };

/**
 * Items of an import body. `body` is the raw (already inflated) request body, as one Buffer or as a
 * stream of chunks. With `rootArray`, a top-level JSON array is read as the contacts (the CLI's
 * `.json` files may hold a bare array).
 */
export async function* importBodyItems(
  body: Buffer | Readable | AsyncIterable<Uint8Array | string>,
  options: { rootArray?: boolean } = {},
): AsyncGenerator<ImportBodyItem> {
  const parser = new BodyParser(options.rootArray === true);
  const tokenizer = new Tokenizer({ emitPartialTokens: true });
  tokenizer.onToken = (t) => parser.token(t);
  tokenizer.onError = (err) => {
    throw err;
  };
  const write = (chunk: Uint8Array | string): void => {
    try {
      tokenizer.write(chunk);
    } catch (err) {
      if (err instanceof ApiError || err instanceof ImportInputError) throw err;
      throw malformed(err instanceof Error ? err.message : 'malformed JSON');
    }
  };
  const chunks: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array> = Buffer.isBuffer(body)
    ? slices(body)
    : body;
  let any = false;
  for await (const chunk of chunks) {
    for (let i = 0; i < chunk.length; i += SLICE) {
      const part = chunk.length <= SLICE ? chunk : chunk.slice(i, i + SLICE);
      if (part.length) any = true;
      write(part);
      if (parser.items.length) {
        const ready = parser.items;
        parser.items = [];
        yield* ready;
      }
    }
  }
  if (!any) throw ApiError.validation('body', 'Request body must be a JSON object');
  try {
    tokenizer.end();
  } catch (err) {
    if (err instanceof ApiError || err instanceof ImportInputError) throw err;
    throw malformed(err instanceof Error ? err.message : 'incomplete JSON');
  }
  if (!parser.done) throw malformed('the body ends before the JSON value is complete');
  yield* parser.items;
}

function* slices(body: Buffer): Iterable<Uint8Array> {
  for (let i = 0; i < body.length; i += SLICE) yield body.subarray(i, i + SLICE);
}

/** The token-level state machine of the top-level object (and of one contact at a time). */
class BodyParser {
  items: ImportBodyItem[] = [];
  done = false;
  /** 0: before the root; 1: in the root object; 2: in the contacts array. */
  private level = 0;
  private seen = new Set<string>();
  /** The root object's key whose value comes next (after its colon). */
  private key?: string;
  private expectingValue = false;
  /** The contact being built: its containers (innermost last), where it started, its index. */
  private stack: Container[] = [];
  private contactStart = 0;
  private contactIndex = 0;
  private csvSent = 0;
  private current: unknown;

  constructor(private readonly rootArray: boolean) {}

  token(t: ParsedTokenInfo): void {
    if (this.stack.length || (this.level === 2 && this.startsValue(t.token))) {
      this.contactToken(t);
      return;
    }
    switch (this.level) {
      case 0:
        if (t.token === TokenType.LEFT_BRACE) this.level = 1;
        else if (t.token === TokenType.LEFT_BRACKET && this.rootArray) {
          this.seen.add('contacts');
          this.items.push({ kind: 'contacts' });
          this.level = 2;
        } else throw ApiError.validation('body', 'Request body must be a JSON object');
        return;
      case 1:
        this.rootToken(t);
        return;
      case 2:
        if (t.token === TokenType.COMMA) return;
        if (t.token === TokenType.RIGHT_BRACKET) {
          if (this.seen.has('root-object')) this.level = 1;
          else {
            this.done = true; // a bare array at the root (rootArray)
            this.level = 3;
          }
          return;
        }
        throw malformed(`unexpected ${String(t.value)} in contacts`);
    }
  }

  private startsValue(token: TokenType): boolean {
    return token !== TokenType.COMMA && token !== TokenType.RIGHT_BRACKET;
  }

  private rootToken(t: ParsedTokenInfo): void {
    this.seen.add('root-object');
    if (!this.expectingValue) {
      if (t.token === TokenType.STRING) {
        if (t.partial) return;
        const key = t.value as string;
        if (!isStorable(key)) {
          throw new ApiError(400, 'invalid_request', 'A JSON key is not well-formed Unicode text');
        }
        if (!TOP_LEVEL.has(key)) throw ApiError.validation(key, `property ${key} should not exist`);
        if (this.seen.has(key)) throw ApiError.validation(key, `${key} is given more than once`);
        this.seen.add(key);
        this.key = key;
      } else if (t.token === TokenType.COLON) {
        this.expectingValue = true;
      } else if (t.token === TokenType.RIGHT_BRACE) {
        this.done = true;
        this.level = 3;
      }
      // commas between members need nothing
      return;
    }
    const key = this.key!;
    if (t.token === TokenType.NULL) {
      if (t.partial) return;
    } else if (key === 'contacts') {
      if (t.token !== TokenType.LEFT_BRACKET) {
        throw ApiError.validation('contacts', 'contacts must be an array');
      }
      this.items.push({ kind: 'contacts' });
      this.level = 2;
    } else if (key === 'csv') {
      if (t.token !== TokenType.STRING) throw ApiError.validation('csv', 'csv must be a string');
      this.csvPiece(t.value as string, t.partial === true);
      if (t.partial) return;
    } else {
      if (t.token !== TokenType.TRUE && t.token !== TokenType.FALSE) {
        throw ApiError.validation('update_existing', 'update_existing must be a boolean value');
      }
      if (t.partial) return;
      this.items.push({ kind: 'update_existing', value: t.value as boolean });
    }
    this.expectingValue = false;
  }

  /** `value` is the whole string so far; passes on the part not sent yet (never half a pair). */
  private csvPiece(value: string, partial: boolean): void {
    let end = value.length;
    if (partial && end > this.csvSent) {
      const last = value.charCodeAt(end - 1);
      if (last >= 0xd800 && last <= 0xdbff) end -= 1;
    }
    if (end > this.csvSent) this.items.push({ kind: 'csv', text: value.slice(this.csvSent, end) });
    this.csvSent = end;
    if (!partial) this.items.push({ kind: 'csv-end' });
  }

  /** A token inside one contact (the array element being built). */
  private contactToken(t: ParsedTokenInfo): void {
    if (t.partial) return;
    if (!this.stack.length) this.contactStart = t.offset;
    else if (t.offset - this.contactStart > MAX_CONTACT_BYTES) {
      throw new ImportInputError(
        'contacts',
        `contacts[${this.contactIndex}] is larger than ${MAX_CONTACT_BYTES / 1024} KiB of JSON`,
      );
    }
    switch (t.token) {
      case TokenType.LEFT_BRACE:
      case TokenType.LEFT_BRACKET: {
        if (this.stack.length >= MAX_DEPTH)
          throw new ApiError(400, 'invalid_request', 'JSON nested too deeply');
        const c: Container = t.token === TokenType.LEFT_BRACE ? { obj: {} } : { arr: [] };
        const value = 'obj' in c ? c.obj : c.arr;
        if (this.stack.length) this.place(value);
        else this.current = value;
        this.stack.push(c);
        return;
      }
      case TokenType.RIGHT_BRACE:
      case TokenType.RIGHT_BRACKET:
        this.stack.pop();
        // A contact is handed on only once it is complete (it may span several slices).
        if (!this.stack.length) this.emit(this.current);
        return;
      case TokenType.COLON:
      case TokenType.COMMA:
        return;
      case TokenType.STRING: {
        const top = this.stack[this.stack.length - 1];
        if (top && 'obj' in top && top.key === undefined) {
          top.key = t.value as string;
          return;
        }
        this.place(t.value);
        return;
      }
      case TokenType.TRUE:
      case TokenType.FALSE:
      case TokenType.NULL:
      case TokenType.NUMBER:
        this.place(t.value);
        return;
      case TokenType.SEPARATOR:
        throw malformed('unexpected separator');
    }
  }

  private emit(value: unknown): void {
    this.items.push({ kind: 'contact', value });
    this.current = undefined;
    this.contactIndex += 1;
  }

  /** Puts a value into the innermost container, or emits it when it is a whole (scalar) contact. */
  private place(value: unknown): void {
    const top = this.stack[this.stack.length - 1];
    if (!top) {
      this.emit(value);
      return;
    }
    if ('arr' in top) {
      top.arr.push(value);
      return;
    }
    // A repeated key: the last one wins, as with JSON.parse. `__proto__` stays an own property.
    Object.defineProperty(top.obj, top.key!, { value, enumerable: true, writable: true, configurable: true });
    top.key = undefined;
  }
}
