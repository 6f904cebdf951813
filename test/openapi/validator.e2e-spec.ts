/**
 * The traffic validator (test/helpers/openapi-traffic.ts) catches each kind of mismatch it claims
 * to: checked on a small document and hand-made exchanges, so a validator that silently accepts
 * everything cannot make test/openapi/traffic.e2e-spec.ts pass.
 */
import { validateTraffic, type Exchange } from '../helpers/openapi-traffic.js';

const ERROR = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['type', 'message'],
      properties: { type: { type: 'string', enum: ['not_found'] }, message: { type: 'string' } },
    },
  },
};

const doc = {
  openapi: '3.1.0',
  components: { schemas: { ErrorEnvelopeDto: ERROR } },
  paths: {
    '/api/v1/things/{id}': {
      get: {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } }],
        responses: {
          '200': {
            description: 'OK',
            headers: { 'X-Request-Id': { schema: { type: 'string' } } },
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['data'],
                  properties: {
                    data: { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } },
                  },
                },
              },
            },
          },
          '404': { description: 'Not found', content: { 'application/json': { schema: ERROR } } },
        },
      },
    },
    '/api/v1/things': {
      post: {
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                additionalProperties: false,
                required: ['name'],
                properties: { name: { type: 'string' } },
              },
            },
          },
        },
        responses: { '201': { description: 'Created' } },
      },
    },
  },
};

const exchange = (x: Partial<Exchange>): Exchange => ({
  method: 'GET',
  url: '/api/v1/things/1',
  requestHeaders: { 'content-type': 'application/json' },
  status: 200,
  responseHeaders: { 'content-type': 'application/json; charset=utf-8' },
  responseBody: '{"data":{"id":1}}',
  ...x,
});

describe('the traffic validator', () => {
  it('accepts exchanges that match the document', () => {
    expect(
      validateTraffic(
        [
          exchange({ responseHeaders: { 'content-type': 'application/json', 'x-request-id': 'r1' } }),
          exchange({ status: 404, responseBody: '{"error":{"type":"not_found","message":"Not found"}}' }),
          exchange({
            method: 'POST',
            url: '/api/v1/things',
            status: 201,
            requestBody: { name: 'a' },
            responseBody: '',
          }),
        ],
        doc,
      ),
    ).toEqual([]);
  });

  it.each<[string, Partial<Exchange>, RegExp]>([
    ['an undocumented status', { status: 409, responseBody: '{}' }, /status 409 is not documented/],
    [
      'a body off its schema',
      { responseBody: '{"data":{"id":"1"}}' },
      /response body \/data\/id must be integer/,
    ],
    [
      'an undocumented header',
      { responseHeaders: { 'content-type': 'application/json', ratelimit: 'x' } },
      /header ratelimit/,
    ],
    [
      'an accepted body the document rejects',
      {
        method: 'POST',
        url: '/api/v1/things',
        status: 201,
        requestBody: { name: 'a', extra: 1 },
        responseBody: '',
      },
      /accepted a body the document rejects/,
    ],
    ['an accepted path parameter the document rejects', { url: '/api/v1/things/0' }, /accepted path id=0/],
    ['an undocumented route that answers 200', { url: '/api/v1/others' }, /undocumented route answered 200/],
    ['an error body off the envelope', { status: 404, responseBody: '{"message":"nope"}' }, /response body/],
  ])('reports %s', (_what, x, expected) => {
    const found = validateTraffic([exchange(x)], doc);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(expected);
  });
});
