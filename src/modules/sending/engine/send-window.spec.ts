import type { CampaignSchedule } from '../../campaigns/entities/campaign.entity.js';
import { insideWindow, nextWindowOpening, sendingTimezone } from './send-window.js';

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

describe('send window in the contact timezone, across DST changes and date lines', () => {
  const nineToTen = (days: CampaignSchedule['days'], timezone = 'UTC'): CampaignSchedule => ({
    timezone,
    days,
    start_time: '09:00',
    end_time: '10:00',
  });
  const iso = (d: Date | null): string | null => d?.toISOString() ?? null;

  it('reads the days and hours in the contact zone: Kiritimati (UTC+14) is a day ahead of UTC', () => {
    const monday = nineToTen(['mon']);
    // Sunday 2026-01-11 19:30 UTC is Monday 09:30 in Kiritimati.
    const at = new Date('2026-01-11T19:30:00Z');
    expect(insideWindow(monday, at)).toBe(false);
    expect(insideWindow(monday, at, 'Pacific/Kiritimati')).toBe(true);
    expect(
      iso(nextWindowOpening(monday, new Date('2026-01-11T00:00:00Z'), { timezone: 'Pacific/Kiritimati' })),
    ).toBe('2026-01-11T19:00:00.000Z');
    // The schedule's own zone: Monday 09:00 UTC.
    expect(iso(nextWindowOpening(monday, new Date('2026-01-11T00:00:00Z')))).toBe('2026-01-12T09:00:00.000Z');
  });

  it('Newfoundland (UTC−3:30, −2:30 in summer): Friday after the window → Monday 09:00 NDT across the DST start', () => {
    const weekdays = nineToTen(['mon', 'tue', 'wed', 'thu', 'fri'], 'Europe/London');
    // Friday 2026-03-06 14:00 UTC = 10:30 NST (window over); DST starts Sunday 8 March.
    expect(
      iso(nextWindowOpening(weekdays, new Date('2026-03-06T14:00:00Z'), { timezone: 'America/St_Johns' })),
    ).toBe('2026-03-09T11:30:00.000Z');
    expect(insideWindow(weekdays, new Date('2026-03-09T12:29:00Z'), 'America/St_Johns')).toBe(true);
    expect(insideWindow(weekdays, new Date('2026-03-09T12:30:00Z'), 'America/St_Johns')).toBe(false);
  });

  it('Lord Howe (30-minute DST shift): a window in the skipped half hour opens when the clock lands', () => {
    const s: CampaignSchedule = { timezone: 'UTC', days: ['sun'], start_time: '02:00', end_time: '03:00' };
    // Sunday 2026-10-04 02:00 local does not exist: the clock jumps from 02:00 (+10:30) to 02:30 (+11).
    expect(
      iso(nextWindowOpening(s, new Date('2026-10-03T12:00:00Z'), { timezone: 'Australia/Lord_Howe' })),
    ).toBe('2026-10-03T15:30:00.000Z');
    // DST ends Sunday 2026-04-05: 01:30–02:00 happens twice; the first one (+11) is the opening.
    const repeated: CampaignSchedule = { ...s, start_time: '01:30', end_time: '02:00' };
    expect(
      iso(nextWindowOpening(repeated, new Date('2026-04-04T10:00:00Z'), { timezone: 'Australia/Lord_Howe' })),
    ).toBe('2026-04-04T14:30:00.000Z');
    expect(insideWindow(repeated, new Date('2026-04-04T15:10:00Z'), 'Australia/Lord_Howe')).toBe(true);
  });

  it('a day a zone skipped (Samoa crossed the date line: no Friday 30 December 2011) is never a window', () => {
    const friday = nineToTen(['fri']);
    expect(
      iso(nextWindowOpening(friday, new Date('2011-12-29T19:00:00Z'), { timezone: 'Pacific/Apia' })),
    ).toBe('2012-01-05T19:00:00.000Z');
  });

  it('falls back to the schedule zone for a contact without a valid zone; only when asked to', () => {
    const s = nineToTen(['mon'], 'Europe/Paris');
    expect(sendingTimezone(s, true, 'Asia/Tokyo')).toBe('Asia/Tokyo');
    expect(sendingTimezone(s, true, null)).toBe('Europe/Paris');
    expect(sendingTimezone(s, true, 'Mars/Olympus')).toBe('Europe/Paris');
    expect(sendingTimezone(s, true, '+09:00')).toBe('Europe/Paris');
    expect(sendingTimezone(s, false, 'Asia/Tokyo')).toBe('Europe/Paris');
  });

  it('nothing before start_at: the opening is the first in the window at or after it', () => {
    const weekdays = nineToTen(['mon', 'tue', 'wed', 'thu', 'fri']);
    const inside = new Date('2026-01-14T09:30:00Z');
    const startAt = new Date('2026-01-16T09:45:00Z');
    expect(nextWindowOpening(weekdays, inside, { startAt })).toBe(startAt);
    // A start outside the window waits for the next opening after it (Friday 10:00 → Monday 09:00).
    expect(iso(nextWindowOpening(weekdays, inside, { startAt: new Date('2026-01-16T10:00:00Z') }))).toBe(
      '2026-01-19T09:00:00.000Z',
    );
    // A start in the past changes nothing; without a schedule the start alone decides.
    expect(nextWindowOpening(weekdays, inside, { startAt: new Date('2026-01-01T00:00:00Z') })).toBe(inside);
    expect(nextWindowOpening(null, inside, { startAt })).toBe(startAt);
  });

  it('finds a one-minute window (the walk never jumps over an opening)', () => {
    const s: CampaignSchedule = {
      timezone: 'America/New_York',
      days: ['wed'],
      start_time: '13:07',
      end_time: '13:08',
    };
    expect(iso(nextWindowOpening(s, new Date('2026-01-10T00:00:00Z')))).toBe('2026-01-14T18:07:00.000Z');
  });
});

describe('next opening: the jumping walk agrees with a minute-by-minute search', () => {
  const ZONES = [
    'UTC',
    'Pacific/Kiritimati',
    'America/St_Johns',
    'Australia/Lord_Howe',
    'Europe/London',
    'America/Los_Angeles',
    'Asia/Kathmandu',
    'Pacific/Chatham',
  ];
  const DAYS: CampaignSchedule['days'] = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
  // Deterministic pseudo-random cases (a linear congruential generator), around DST changes of 2026.
  let seed = 20261125;
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const FROMS = [
    '2026-03-07T20:00:00Z',
    '2026-03-28T22:00:00Z',
    '2026-04-04T10:00:00Z',
    '2026-10-03T12:00:00Z',
  ];
  const hhmm = (m: number): string =>
    `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;

  it('on 60 random schedules, zones and start points', () => {
    for (let i = 0; i < 60; i++) {
      const timezone = ZONES[rand(ZONES.length)];
      const days = DAYS.filter(() => rand(3) > 0);
      if (days.length === 0) days.push('wed');
      const start = rand(1439);
      const end = Math.min(1440, start + 1 + rand(240));
      const s: CampaignSchedule = {
        timezone: 'UTC',
        days,
        start_time: hhmm(start),
        end_time: end === 1440 ? '24:00' : hhmm(end),
      };
      const from = new Date(Date.parse(FROMS[rand(FROMS.length)]) + rand(1440) * 60_000 + 17_000);
      let expected: Date | null = null;
      if (insideWindow(s, from, timezone)) expected = from;
      else {
        for (
          let t = Math.ceil(from.getTime() / 60_000) * 60_000;
          t < from.getTime() + 8 * 86_400_000;
          t += 60_000
        ) {
          if (insideWindow(s, new Date(t), timezone)) {
            expected = new Date(t);
            break;
          }
        }
      }
      const got = nextWindowOpening(s, from, { timezone });
      expect({ i, timezone, s, from, got }).toEqual({ i, timezone, s, from, got: expected });
    }
  });
});
