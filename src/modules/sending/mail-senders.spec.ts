import { ApiRequestError, apiRoot, retryAfterSeconds } from '../inboxes/provider-api/api-http.js';
import { classifyApiFailure } from './mail-senders.js';

describe('what an API answer means for a send', () => {
  const err = (...a: ConstructorParameters<typeof ApiRequestError>) =>
    classifyApiFailure(new ApiRequestError(...a));

  it('throttling holds the inbox for Retry-After; nothing was sent', () => {
    const r = err('throttled', 429, 'HTTP 429', 120);
    expect(r.failure.kind).toBe('not_sent');
    expect(r.holdSeconds).toBe(120);
    expect(r.retryDelaySeconds).toBe(120);
  });

  it('no answer: in doubt only once the body had started to flow; a gateway error is in doubt', () => {
    expect(err('no_answer', null, 'no answer (UND_ERR_SOCKET)', null, true).failure.kind).toBe('unknown');
    expect(err('no_answer', null, 'no answer (ECONNREFUSED)', null, false).failure.kind).toBe('not_sent');
    expect(err('gateway', 504, 'HTTP 504').failure.kind).toBe('unknown');
  });

  it('a refused message is a bounce; a refused mailbox or a second 401 takes the inbox out; a 500 is retried', () => {
    expect(err('refused', 400, 'HTTP 400 ErrorInvalidRecipients').failure.kind).toBe('bounced');
    expect(err('refused', 403, 'HTTP 403 ErrorAccessDenied').failure).toMatchObject({
      kind: 'not_sent',
      inboxError: true,
    });
    expect(err('unauthorized', 401, 'HTTP 401').failure).toMatchObject({
      kind: 'not_sent',
      inboxError: true,
    });
    expect(err('refused', 500, 'HTTP 500').failure).toMatchObject({ kind: 'not_sent', inboxError: false });
  });

  it('Retry-After in seconds or as an HTTP date, bounded; base URLs with or without their version', () => {
    expect(retryAfterSeconds('30')).toBe(30);
    expect(retryAfterSeconds(undefined)).toBeNull();
    expect(retryAfterSeconds('soon')).toBeNull();
    expect(retryAfterSeconds('999999')).toBe(3600);
    const now = Date.parse('2026-11-29T10:00:00Z');
    expect(retryAfterSeconds('Sun, 29 Nov 2026 10:01:00 GMT', now)).toBe(60);
    expect(apiRoot('https://graph.microsoft.com', /\/(v1\.0|beta)$/, '/v1.0')).toBe(
      'https://graph.microsoft.com/v1.0',
    );
    expect(apiRoot('http://127.0.0.1:9/v1.0', /\/(v1\.0|beta)$/, '/v1.0')).toBe('http://127.0.0.1:9/v1.0');
  });
});
