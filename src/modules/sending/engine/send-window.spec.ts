import type { CampaignSchedule } from '../../campaigns/entities/campaign.entity.js';
import { insideWindow, nextWindowOpening } from './send-window.js';

const weekdays9to17: CampaignSchedule = {
  timezone: 'America/New_York',
  days: ['mon', 'tue', 'wed', 'thu', 'fri'],
  start_time: '09:00',
  end_time: '17:00',
};

describe('send window', () => {
  it('is open inside the local window and closed outside (timezone-aware)', () => {
    // Wednesday 2026-01-14 14:30 UTC = 09:30 in New York (EST, UTC-5).
    expect(insideWindow(weekdays9to17, new Date('2026-01-14T14:30:00Z'))).toBe(true);
    // 13:59 UTC = 08:59 local: closed.
    expect(insideWindow(weekdays9to17, new Date('2026-01-14T13:59:00Z'))).toBe(false);
    // 22:00 UTC = 17:00 local: end is exclusive.
    expect(insideWindow(weekdays9to17, new Date('2026-01-14T22:00:00Z'))).toBe(false);
    expect(insideWindow(null, new Date())).toBe(true);
  });

  it('finds the next opening: Friday evening → Monday 09:00 local, across a DST change', () => {
    // Friday 2026-03-06 23:00 UTC = 18:00 EST; DST starts Sunday 2026-03-08, so Monday 09:00 EDT = 13:00 UTC.
    expect(nextWindowOpening(weekdays9to17, new Date('2026-03-06T23:00:00Z'))?.toISOString()).toBe(
      '2026-03-09T13:00:00.000Z',
    );
    const inside = new Date('2026-01-14T15:00:00Z');
    expect(nextWindowOpening(weekdays9to17, inside)).toBe(inside);
  });

  it('an end of 24:00 keeps the window open until local midnight', () => {
    const s: CampaignSchedule = { timezone: 'UTC', days: ['sat'], start_time: '22:00', end_time: '24:00' };
    expect(insideWindow(s, new Date('2026-01-17T23:59:00Z'))).toBe(true);
    expect(nextWindowOpening(s, new Date('2026-01-18T00:00:00Z'))?.toISOString()).toBe(
      '2026-01-24T22:00:00.000Z',
    );
  });
});
