/**
 * The enrollment state machine, in one place. pause: active → paused; resume:
 * paused → active; stop: active|paused → stopped. The engine completes and stops enrollments too.
 */
/** `skipped`: the engine never sent to the contact because of its address verdict (CONTRACT §24). */
export const ENROLLMENT_STATUSES = ['active', 'paused', 'completed', 'stopped', 'skipped'] as const;
export type EnrollmentStatus = (typeof ENROLLMENT_STATUSES)[number];
export const STOP_REASONS = [
  'manual',
  'replied',
  'bounced',
  'unsubscribed',
  'complained',
  'cancelled',
  'address_invalid',
  'address_risky',
] as const;
export type StopReason = (typeof STOP_REASONS)[number];

export type EnrollmentAction = 'pause' | 'resume' | 'stop' | 'complete';

const TRANSITIONS: Record<EnrollmentAction, Partial<Record<EnrollmentStatus, EnrollmentStatus>>> = {
  pause: { active: 'paused' },
  resume: { paused: 'active' },
  stop: { active: 'stopped', paused: 'stopped' },
  complete: { active: 'completed' },
};

/** The status after `action`, or null when the current status does not allow it (409). */
export function nextEnrollmentStatus(
  current: EnrollmentStatus,
  action: EnrollmentAction,
): EnrollmentStatus | null {
  return TRANSITIONS[action][current] ?? null;
}

/** Statuses from which `action` is allowed, for SQL guards (`WHERE status = ANY(...)`). */
export function statusesAllowing(action: EnrollmentAction): EnrollmentStatus[] {
  return Object.keys(TRANSITIONS[action]) as EnrollmentStatus[];
}
