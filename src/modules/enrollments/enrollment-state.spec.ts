import {
  ENROLLMENT_STATUSES,
  nextEnrollmentStatus,
  statusesAllowing,
  type EnrollmentAction,
  type EnrollmentStatus,
} from './enrollment-state.js';

/** The whole table, written out: every status × every action. null = 409. */
const EXPECTED: Record<EnrollmentStatus, Record<EnrollmentAction, EnrollmentStatus | null>> = {
  active: { pause: 'paused', resume: null, stop: 'stopped', complete: 'completed' },
  paused: { pause: null, resume: 'active', stop: 'stopped', complete: null },
  completed: { pause: null, resume: null, stop: null, complete: null },
  stopped: { pause: null, resume: null, stop: null, complete: null },
  skipped: { pause: null, resume: null, stop: null, complete: null },
};
const ACTIONS: EnrollmentAction[] = ['pause', 'resume', 'stop', 'complete'];

describe('enrollment transition table', () => {
  const pairs = ENROLLMENT_STATUSES.flatMap((s) => ACTIONS.map((a) => [s, a, EXPECTED[s][a]] as const));

  it('covers 5 statuses × 4 actions', () => {
    expect(pairs).toHaveLength(20);
  });

  it.each(pairs)('%s + %s → %s', (status, action, expected) => {
    expect(nextEnrollmentStatus(status, action)).toBe(expected);
  });

  it.each(ACTIONS)('statusesAllowing(%s) agrees with the table', (action) => {
    const allowed = ENROLLMENT_STATUSES.filter((s) => EXPECTED[s][action] !== null);
    expect([...statusesAllowing(action)].sort()).toEqual([...allowed].sort());
  });

  it('has no way out of completed or stopped', () => {
    for (const action of ACTIONS) {
      expect(nextEnrollmentStatus('completed', action)).toBeNull();
      expect(nextEnrollmentStatus('stopped', action)).toBeNull();
    }
  });
});
