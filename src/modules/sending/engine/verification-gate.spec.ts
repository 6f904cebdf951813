import { addressGate, PENDING_WAIT_MS } from './verification-gate.js';

describe('addressGate', () => {
  const now = new Date('2026-11-29T10:00:00Z');
  const justEnrolled = new Date(now.getTime() - 1000);

  it.each([
    ['skip_invalid', 'valid', 'send'],
    ['skip_invalid', 'unknown', 'send'],
    ['skip_invalid', 'risky', 'send'],
    ['skip_invalid', 'invalid', 'address_invalid'],
    ['skip_risky', 'valid', 'send'],
    ['skip_risky', 'unknown', 'send'],
    ['skip_risky', 'risky', 'address_risky'],
    ['skip_risky', 'invalid', 'address_invalid'],
    ['off', 'invalid', 'send'],
    ['off', 'risky', 'send'],
    ['off', 'pending', 'send'],
  ] as const)('%s + %s → %s', (setting, status, expected) => {
    const gate = addressGate(setting, status, justEnrolled, now, true);
    expect(gate.kind === 'skip' ? gate.reason : gate.kind).toBe(expected);
  });

  it('waits a minute at a time for a pending verdict, at most 10 minutes from the enrollment', () => {
    expect(addressGate('skip_invalid', 'pending', justEnrolled, now, true)).toEqual({
      kind: 'wait',
      until: new Date(now.getTime() + 60_000),
    });
    const nearEnd = new Date(now.getTime() - PENDING_WAIT_MS + 20_000);
    expect(addressGate('skip_invalid', 'pending', nearEnd, now, true)).toEqual({
      kind: 'wait',
      until: new Date(now.getTime() + 20_000),
    });
    const past = new Date(now.getTime() - PENDING_WAIT_MS);
    expect(addressGate('skip_risky', 'pending', past, now, true)).toEqual({ kind: 'send' });
  });

  it('with VERIFY_ADDRESSES=false every contact is sent', () => {
    for (const status of ['invalid', 'risky', 'pending']) {
      expect(addressGate('skip_risky', status, justEnrolled, now, false)).toEqual({ kind: 'send' });
    }
  });
});
