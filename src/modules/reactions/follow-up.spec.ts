import { followUpAt, zonedInstant } from './follow-up.js';

describe('follow-up day', () => {
  it('is the day at the start time in the zone', () => {
    expect(zonedInstant('2027-03-01', '09:00', 'Europe/Berlin').toISOString()).toBe(
      '2027-03-01T08:00:00.000Z',
    );
    expect(zonedInstant('2027-07-01', '09:00', 'Europe/Berlin').toISOString()).toBe(
      '2027-07-01T07:00:00.000Z',
    );
    expect(zonedInstant('2027-03-01', '00:00', 'America/New_York').toISOString()).toBe(
      '2027-03-01T05:00:00.000Z',
    );
  });

  it('ignores a day in the past or more than a year ahead', () => {
    const at = new Date('2026-11-29T10:00:00Z');
    expect(followUpAt('2026-11-01', '09:00', 'UTC', at)).toBeNull();
    expect(followUpAt('2028-01-10', '09:00', 'UTC', at)).toBeNull();
    expect(followUpAt(null, '09:00', 'UTC', at)).toBeNull();
  });
});
