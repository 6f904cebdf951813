import { effectiveDailyLimit, type RampFields } from './ramp-up.js';

const DAY = 86_400_000;
const began = new Date('2026-11-01T15:00:00Z');
const ramp = (over: Partial<RampFields> = {}): RampFields => ({
  dailyLimit: 40,
  rampStart: 5,
  rampIncreasePerDay: 5,
  rampStartedAt: began,
  ...over,
});

describe('effectiveDailyLimit', () => {
  it('is the daily limit without a ramp', () => {
    expect(
      effectiveDailyLimit(ramp({ rampStart: null, rampIncreasePerDay: null, rampStartedAt: null })),
    ).toBe(40);
  });

  it('grows by increase_per_day for each whole day since the ramp began, never above the daily limit', () => {
    const at = (ms: number) => effectiveDailyLimit(ramp(), new Date(began.getTime() + ms));
    expect(at(0)).toBe(5);
    expect(at(DAY - 1)).toBe(5);
    expect(at(DAY)).toBe(10);
    expect(at(2 * DAY + 1)).toBe(15);
    expect(at(7 * DAY)).toBe(40);
    expect(at(365 * DAY)).toBe(40);
  });

  it('a ramp with no increase stays at its start; a clock before the start counts as day one', () => {
    expect(effectiveDailyLimit(ramp({ rampIncreasePerDay: 0 }), new Date(began.getTime() + 9 * DAY))).toBe(5);
    expect(effectiveDailyLimit(ramp(), new Date(began.getTime() - DAY))).toBe(5);
  });
});
