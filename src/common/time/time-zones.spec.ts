import { canonicalTimezone, FORMATTERS_MAX, timezoneCacheSizes, zoneFormatter } from './time-zones.js';

describe('time zones', () => {
  it('canonicalises spellings and links to one IANA name; refuses offsets, abbreviations of no zone and junk', () => {
    for (const [given, canonical] of [
      ['uS/EaStErN', 'America/New_York'],
      ['EST5EDT', 'America/New_York'],
      ['Universal', 'UTC'],
      ['GMT', 'UTC'],
      ['asia/saigon', 'Asia/Ho_Chi_Minh'],
      ['Pacific/Port_Moresby', 'Pacific/Port_Moresby'],
    ]) {
      expect({ given, got: canonicalTimezone(given) }).toEqual({ given, got: canonical });
    }
    for (const bad of [
      '+02:00',
      'Z',
      'UTC+2',
      'Mars/Olympus',
      '',
      ' UTC',
      'Europe/../etc',
      'x'.repeat(65),
      1,
    ]) {
      expect({ bad, got: canonicalTimezone(bad) }).toEqual({ bad, got: undefined });
    }
  });

  it('keeps its caches bounded whatever it is given: one formatter per canonical zone', () => {
    const letters = [...'america/argentina/buenos_aires'].map((ch, i) => (/[a-z]/.test(ch) ? i : -1));
    for (let mask = 0; mask < 5000; mask++) {
      const chars = [...'america/argentina/buenos_aires'];
      letters
        .filter((i) => i >= 0)
        .forEach((at, bit) => {
          if (mask & (1 << bit)) chars[at] = chars[at].toUpperCase();
        });
      const spelling = chars.join('');
      expect(canonicalTimezone(spelling)).toBe('America/Argentina/Buenos_Aires');
      zoneFormatter(spelling);
      canonicalTimezone(`Nowhere/Zone_${mask}`);
    }
    const sizes = timezoneCacheSizes();
    expect(sizes.names).toBeLessThan(1000);
    expect(sizes.formatters).toBeLessThanOrEqual(FORMATTERS_MAX);
    expect(sizes.formatters).toBeLessThanOrEqual(2);
    expect(() => zoneFormatter('Nowhere/Zone_1')).toThrow(RangeError);
    // A legacy schedule zone only ICU knows is still read (it is refused at save now).
    expect(canonicalTimezone('PST')).toBeUndefined();
    expect(zoneFormatter('PST').resolvedOptions().timeZone).toBe('America/Los_Angeles');
  });
});
