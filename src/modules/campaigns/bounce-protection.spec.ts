import { BOUNCE_MIN_SENDS, bounceRateExceeded } from './bounce-protection.js';

describe('bounce protection rule', () => {
  it('pauses only when bounces exceed the percentage, strictly', () => {
    expect(bounceRateExceeded(100, 6, 5)).toBe(true);
    expect(bounceRateExceeded(100, 5, 5)).toBe(false);
    expect(bounceRateExceeded(99, 5, 5)).toBe(true);
    expect(bounceRateExceeded(100, 3, 2.5)).toBe(true);
    expect(bounceRateExceeded(100, 100, 100)).toBe(false);
  });

  it('judges nothing below 20 sends, and 0 turns it off', () => {
    expect(bounceRateExceeded(BOUNCE_MIN_SENDS - 1, BOUNCE_MIN_SENDS - 1, 5)).toBe(false);
    expect(bounceRateExceeded(BOUNCE_MIN_SENDS, 2, 5)).toBe(true);
    expect(bounceRateExceeded(100, 100, 0)).toBe(false);
  });
});
