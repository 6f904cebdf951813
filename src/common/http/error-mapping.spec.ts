import { BadRequestException, NotFoundException, PayloadTooLargeException } from '@nestjs/common';
import { ApiError } from './api-error.js';
import { mapError } from './error-mapping.js';

describe('mapError', () => {
  it('passes ApiError through with its headers', () => {
    const err = new ApiError(429, 'rate_limited', 'slow down', undefined, { 'Retry-After': '3' });
    expect(mapError(err, 'r1')).toEqual({
      status: 429,
      body: { error: { type: 'rate_limited', message: 'slow down' } },
      headers: { 'Retry-After': '3' },
      unexpected: false,
    });
  });

  it('maps body-parser failures to 400 and 413 without echoing the input', () => {
    const parse = Object.assign(new SyntaxError('Unexpected token } in JSON at position 7: {"pw":"x"}'), {
      status: 400,
      type: 'entity.parse.failed',
    });
    const mapped = mapError(parse, 'r1');
    expect(mapped.status).toBe(400);
    expect(mapped.body.error.type).toBe('invalid_request');
    expect(mapped.body.error.message).not.toContain('pw');
    const large = Object.assign(new Error('request entity too large'), {
      status: 413,
      type: 'entity.too.large',
    });
    expect(mapError(large, 'r1').body.error.type).toBe('payload_too_large');
  });

  it('maps zlib, encoding and charset failures to 400 and a bad path encoding to 404', () => {
    const zlib = Object.assign(new Error('incorrect header check'), { status: 400, code: 'Z_DATA_ERROR' });
    expect(mapError(zlib, 'r').body).toEqual({
      error: { type: 'invalid_request', message: 'Malformed request body' },
    });
    const enc = Object.assign(new Error('unsupported content encoding "zstd"'), {
      status: 415,
      type: 'encoding.unsupported',
    });
    expect(mapError(enc, 'r')).toMatchObject({ status: 400, body: { error: { type: 'invalid_request' } } });
    const uri = Object.assign(new URIError("Failed to decode param '%E0%A4%A'"), { status: 400 });
    const wrapped = new BadRequestException(uri.message, { cause: uri });
    for (const e of [uri, wrapped]) {
      expect(mapError(e, 'r')).toMatchObject({
        status: 404,
        body: { error: { type: 'not_found', message: 'Not found' } },
      });
    }
    const syntax = Object.assign(new SyntaxError('Unexpected token x in JSON: {"secret"'), { status: 400 });
    const wrappedSyntax = new BadRequestException(syntax.message, { cause: syntax });
    expect(mapError(wrappedSyntax, 'r').body.error.message).toBe('Request body is not valid JSON');
  });

  it('maps Nest HTTP exceptions to the contract types', () => {
    expect(mapError(new NotFoundException('Cannot GET /secret/path'), 'r').body).toEqual({
      error: { type: 'not_found', message: 'Not found' },
    });
    expect(mapError(new PayloadTooLargeException(), 'r').body.error.type).toBe('payload_too_large');
    expect(mapError(new BadRequestException(), 'r').body.error.type).toBe('invalid_request');
  });

  it('turns anything else into 500 internal_error with only the request id', () => {
    for (const thrown of [
      new Error('duplicate key value violates unique constraint "api_keys_pkey"'),
      { query: 'SELECT * FROM api_keys' },
      'a string',
      undefined,
      Object.assign(new Error('x'), { status: 500 }),
    ]) {
      const mapped = mapError(thrown, 'req-77');
      expect(mapped).toEqual({
        status: 500,
        body: { error: { type: 'internal_error', message: 'Internal error; request id req-77' } },
        headers: {},
        unexpected: true,
      });
    }
  });
});
