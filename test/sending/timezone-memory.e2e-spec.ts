/**
 * A tenant cannot grow the send workers' memory with time zone spellings (issue 24, CONTRACT §21):
 * 100,000 distinct spellings (case variants of real zones, links, and names that are no zone) are put
 * through the send engine's window code (`sendingTimezone`, `insideWindow`, `nextWindowOpening`, as
 * the recorder calls them) in a real child process running the built service code (dist/), and its
 * resident memory after a full GC stays within 20 MB of where it was after a warm-up.
 */
import { spawnSync } from 'node:child_process';
import { ensureBuilt } from '../helpers/processes.js';

const SPELLINGS = 100_000;
const LIMIT_MB = 20;

/** Runs in the child (an ES module): prints one JSON line. */
const CHILD = `
import { insideWindow, nextWindowOpening, sendingTimezone } from './dist/modules/sending/engine/send-window.js';
const schedule = { timezone: 'UTC', days: ['mon', 'tue', 'wed', 'thu', 'fri'], start_time: '09:00', end_time: '17:00' };
const zones = ['America/Argentina/Buenos_Aires', 'America/North_Dakota/New_Salem', 'America/Port_of_Spain',
  'Europe/Paris', 'America/New_York', 'US/Eastern', 'Asia/Kolkata', 'Pacific/Port_Moresby'];
function* spellings() {
  for (const zone of zones) {
    const letters = [...zone].map((ch, i) => (/[a-z]/i.test(ch) ? i : -1)).filter((i) => i >= 0);
    const variants = Math.min(2 ** letters.length, 20_000);
    for (let mask = 0; mask < variants; mask++) {
      const chars = [...zone.toLowerCase()];
      letters.forEach((at, bit) => { if (mask & (1 << bit % 30)) chars[at] = chars[at].toUpperCase(); });
      yield chars.join('');
    }
  }
  for (let i = 0; ; i++) yield 'Nowhere/Zone_' + i; // not zones at all
}
const mb = () => { gc(); gc(); return process.memoryUsage().rss / 2 ** 20; };
const at = new Date('2026-11-23T20:00:00Z');
const seen = new Set();
let baseline = 0;
let n = 0;
let peakGrowth = 0;
for (const s of spellings()) {
  if (seen.has(s)) continue;
  seen.add(s);
  const tz = sendingTimezone(schedule, true, s);
  insideWindow(schedule, at, tz);
  nextWindowOpening(schedule, at, { timezone: tz });
  n += 1;
  if (n === 5_000) { seen.clear(); baseline = mb(); }
  if (n > 5_000 && n % 5_000 === 0) {
    seen.clear();
    const growth = mb() - baseline;
    peakGrowth = Math.max(peakGrowth, growth);
    if (growth > ${LIMIT_MB}) break; // no need to go on: it grows
  }
  if (n >= 5_000 + ${SPELLINGS}) break;
}
console.log(JSON.stringify({ spellings: n - 5_000, baselineMb: Math.round(baseline), peakGrowthMb: Math.round(peakGrowth * 10) / 10 }));
`;

describe('time zone spellings and worker memory', () => {
  beforeAll(() => ensureBuilt(), 300_000);

  it(`keeps a worker's memory flat (within ${LIMIT_MB} MB) after ${SPELLINGS.toLocaleString('en')} distinct time zone spellings through the window code`, () => {
    const res = spawnSync(
      process.execPath,
      // The young generation is held at 1 MB: V8 grows it up to 16 MB per semi-space under allocation
      // pressure, which shows in RSS as growth that is not retained memory (seen: +21.8 MB on a loaded
      // CI machine with the old default, +13 MB on a quiet one).
      [
        '--expose-gc',
        '--max-old-space-size=512',
        '--max-semi-space-size=1',
        '--input-type=module',
        '-e',
        CHILD,
      ],
      { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' }, timeout: 240_000 },
    );
    expect(res.stderr).toBe('');
    const result = JSON.parse(res.stdout.trim().split('\n').pop()!) as {
      spellings: number;
      peakGrowthMb: number;
    };
    expect(result.peakGrowthMb).toBeLessThanOrEqual(LIMIT_MB);
    expect(result.spellings).toBe(SPELLINGS);
  }, 300_000);
});
