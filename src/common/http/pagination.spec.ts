import { ApiError } from './api-error.js';
import { decodeCursor, encodeCursor, type PageScope } from './pagination.js';

const scope: PageScope = { tenant: '11111111-1111-4111-8111-111111111111', route: 'contacts.index' };

function rejection(fn: () => unknown): { status: number; type: string; field?: string } {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    const e = err as ApiError;
    return { status: e.getStatus(), type: e.body.error.type, field: e.body.error.field };
  }
  throw new Error('expected a rejection');
}

const INVALID = { status: 422, type: 'validation_failed', field: 'cursor' };

describe('cursor codec', () => {
  it('round-trips a payload bound to its tenant and route', () => {
    const payload = { d: 'n' as const, t: '2026-01-02T03:04:05.678Z', i: 42 };
    const cursor = encodeCursor(scope, payload);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(decodeCursor(scope, cursor)).toEqual(payload);
    const uuidPayload = { d: 'p' as const, t: '2026-01-02T03:04:05.678Z', i: 'abc-uuid' };
    expect(decodeCursor(scope, encodeCursor(scope, uuidPayload))).toEqual(uuidPayload);
  });

  it('is opaque: the payload is not readable as plain text', () => {
    const cursor = encodeCursor(scope, { d: 'n', t: '2026-01-02T03:04:05.678Z', i: 42 });
    expect(cursor).not.toContain('2026');
  });

  it('rejects a cursor of another tenant or another route', () => {
    const cursor = encodeCursor(scope, { d: 'n', t: '2026-01-02T03:04:05.678Z', i: 42 });
    expect(
      rejection(() => decodeCursor({ ...scope, tenant: '22222222-2222-4222-8222-222222222222' }, cursor)),
    ).toEqual(INVALID);
    expect(rejection(() => decodeCursor({ ...scope, route: 'campaigns.index' }, cursor))).toEqual(INVALID);
  });

  it('rejects a tampered payload or signature', () => {
    const cursor = encodeCursor(scope, { d: 'n', t: '2026-01-02T03:04:05.678Z', i: 42 });
    const [body, sig] = cursor.split('.');
    const forged = Buffer.from(JSON.stringify({ d: 'n', t: '2026-01-02T03:04:05.678Z', i: 43 })).toString(
      'base64url',
    );
    expect(rejection(() => decodeCursor(scope, `${forged}.${sig}`))).toEqual(INVALID);
    const flipped = sig.slice(0, -1) + (sig.endsWith('A') ? 'B' : 'A');
    expect(rejection(() => decodeCursor(scope, `${body}.${flipped}`))).toEqual(INVALID);
    const flippedBody = (body[0] === 'e' ? 'f' : 'e') + body.slice(1);
    expect(rejection(() => decodeCursor(scope, `${flippedBody}.${sig}`))).toEqual(INVALID);
  });

  it('rejects malformed cursors without throwing anything but a 422', () => {
    for (const bad of ['', '.', 'abc', 'a.b.c', '....', '%%%.%%%', 'eyJ9.', '.sig', 'x'.repeat(999)]) {
      expect(rejection(() => decodeCursor(scope, bad))).toEqual(INVALID);
    }
  });

  it('rejects a correctly signed cursor whose payload is not a cursor', () => {
    const odd: unknown[] = [
      { d: 'x', t: '2026-01-02T03:04:05.678Z', i: 1 },
      { d: 'n', t: 'yesterday', i: 1 },
      { d: 'n', t: 5, i: 1 },
      { d: 'n', t: '2026-01-02T03:04:05.678Z' },
      null,
      [],
    ];
    for (const payload of odd) {
      expect(rejection(() => decodeCursor(scope, encodeCursor(scope, payload as never)))).toEqual(INVALID);
    }
  });
});
