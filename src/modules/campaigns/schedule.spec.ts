import type { CampaignSchedule } from './entities/campaign.entity.js';
import { isIanaTimezone, sameSchedule, scheduleProblem, windowContains } from './schedule.js';

const base: CampaignSchedule = {
  timezone: 'Europe/Paris',
  days: ['mon', 'tue'],
  start_time: '09:00',
  end_time: '17:00',
};

describe('campaign schedule', () => {
  it('accepts IANA names and rejects offsets, abbreviations and junk', () => {
    expect(isIanaTimezone('Europe/Paris')).toBe(true);
    expect(isIanaTimezone('UTC')).toBe(true);
    expect(isIanaTimezone('America/Argentina/Buenos_Aires')).toBe(true);
    expect(isIanaTimezone('+05:00')).toBe(false);
    expect(isIanaTimezone('Mars/Olympus')).toBe(false);
    expect(isIanaTimezone('')).toBe(false);
    expect(isIanaTimezone(42)).toBe(false);
  });

  it('names the first bad field', () => {
    expect(scheduleProblem(base)).toBeNull();
    expect(scheduleProblem({ ...base, end_time: '24:00' })).toBeNull();
    expect(scheduleProblem(null)?.field).toBe('schedule');
    expect(scheduleProblem({ ...base, timezone: 'Nowhere/Land' })?.field).toBe('schedule.timezone');
    expect(scheduleProblem({ ...base, days: [] })?.field).toBe('schedule.days');
    expect(scheduleProblem({ ...base, days: ['mon', 'xyz' as 'mon'] })?.field).toBe('schedule.days.1');
    expect(scheduleProblem({ ...base, days: ['mon', 'mon'] })?.field).toBe('schedule.days');
    expect(scheduleProblem({ ...base, start_time: '24:00' })?.field).toBe('schedule.start_time');
    expect(scheduleProblem({ ...base, start_time: '9:00' })?.field).toBe('schedule.start_time');
    expect(scheduleProblem({ ...base, end_time: '24:01' })?.field).toBe('schedule.end_time');
    expect(scheduleProblem({ ...base, end_time: '09:00' })?.field).toBe('schedule.end_time');
  });

  it('tests the window in the campaign timezone, end exclusive', () => {
    // Monday 2026-01-05 08:00 UTC = 09:00 in Paris (CET, UTC+1).
    expect(windowContains(base, new Date('2026-01-05T08:00:00Z'))).toBe(true);
    expect(windowContains(base, new Date('2026-01-05T07:59:00Z'))).toBe(false);
    expect(windowContains(base, new Date('2026-01-05T15:59:00Z'))).toBe(true);
    expect(windowContains(base, new Date('2026-01-05T16:00:00Z'))).toBe(false);
    // Wednesday is not listed.
    expect(windowContains(base, new Date('2026-01-07T10:00:00Z'))).toBe(false);
    const allDay: CampaignSchedule = {
      timezone: 'UTC',
      days: ['sun'],
      start_time: '00:00',
      end_time: '24:00',
    };
    expect(windowContains(allDay, new Date('2026-01-04T23:59:59Z'))).toBe(true);
    expect(windowContains(allDay, new Date('2026-01-05T00:00:00Z'))).toBe(false);
  });

  it('compares schedules by the window they open (order of days aside)', () => {
    expect(sameSchedule(base, { ...base, days: ['tue', 'mon'] })).toBe(true);
    expect(sameSchedule(base, { ...base, days: ['mon'] })).toBe(false);
    expect(sameSchedule(base, { ...base, timezone: 'UTC' })).toBe(false);
    expect(sameSchedule(base, { ...base, start_time: '08:00' })).toBe(false);
    expect(sameSchedule(base, { ...base, end_time: '18:00' })).toBe(false);
    expect(sameSchedule(null, null)).toBe(true);
    expect(sameSchedule(base, null)).toBe(false);
    expect(sameSchedule(null, base)).toBe(false);
  });
});
