/**
 * The date and referral reader measured on the third sample batch (`fixtures/reply-dates-samples/batch3.ts`),
 * written without looking at the reader.
 *
 * First measurement before tuning: see commit message. The split follows the first set's rule
 * (sha1(id) beginning with 0–3 is held out): the reader is tuned on the other part only, so only the
 * tuning part's misses are printed; of the held-out part only the counts are shown. The bars are not set
 * yet: the tests only check that every list has samples and that no id is used twice.
 */
import { createHash } from 'node:crypto';
import {
  AWAY_B3,
  AWAY_NO_DATE_B3,
  FOLLOW_UP_B3,
  NO_DATE_B3,
  REFERRAL_B3,
} from './fixtures/reply-dates-samples/batch3.js';
import type { DateSample, ReferralSample } from './fixtures/reply-dates-samples/sample.js';
import { readFollowUpDate, readReferral, readReturnDate, type ReadDay } from './reply-dates.js';

type Part = 'held-out' | 'tuning';
const PARTS: Part[] = ['held-out', 'tuning'];
const partOf = (id: string): Part =>
  /^[0-3]/.test(createHash('sha1').update(id).digest('hex')) ? 'held-out' : 'tuning';

/** What the reader said on one sample, and whether that is the expected answer. */
interface Outcome {
  id: string;
  right: boolean;
  expected: unknown;
  got: unknown;
}

function sameDay(expect: string | null, got: ReadDay | null): boolean {
  if (expect === null || got === null) return expect === got;
  const [day, month] = expect.split('/');
  return got.day === day && got.monthOnly === (month === 'month');
}

const datesRead = (samples: DateSample[], read: (text: string, date: Date) => ReadDay | null): Outcome[] =>
  samples.map((x) => {
    const got = read(x.text, new Date(x.date));
    return { id: x.id, right: sameDay(x.expect, got), expected: x.expect, got };
  });

const referralsRead = (samples: ReferralSample[]): Outcome[] =>
  samples.map((x) => {
    const got = readReferral(x.text, x.replier);
    const right =
      x.expect === null
        ? got === null
        : got !== null &&
          got.email === x.expect.email &&
          got.firstName === x.expect.firstName &&
          got.lastName === x.expect.lastName;
    return { id: x.id, right, expected: x.expect, got };
  });

function line(name: string, outcomes: Outcome[]): string {
  const cells = [...PARTS, 'all'].map((part) => {
    const of = outcomes.filter((o) => part === 'all' || partOf(o.id) === part);
    const right = of.filter((o) => o.right).length;
    const pct = Math.round((1000 * right) / Math.max(of.length, 1)) / 10;
    return `${part} ${pct} % (${right}/${of.length})`;
  });
  return `${name.padEnd(30)} ${cells.join('   ')}`;
}

describe('reading dates and referrals on the third sample batch', () => {
  const rows: [string, { id: string }[], Outcome[]][] = [
    ['follow-up dates right', FOLLOW_UP_B3, datesRead(FOLLOW_UP_B3, readFollowUpDate)],
    ['none set on dateless not-now', NO_DATE_B3, datesRead(NO_DATE_B3, readFollowUpDate)],
    ['return dates right', AWAY_B3, datesRead(AWAY_B3, readReturnDate)],
    ['none set on dateless away', AWAY_NO_DATE_B3, datesRead(AWAY_NO_DATE_B3, readReturnDate)],
    ['referrals right', REFERRAL_B3, referralsRead(REFERRAL_B3)],
  ];

  beforeAll(() => {
    const misses = rows.flatMap(([, , outcomes]) =>
      outcomes.filter((o) => !o.right && partOf(o.id) === 'tuning'),
    );
    console.log(
      [
        'reply-dates batch 3',
        ...rows.map(([name, , outcomes]) => line(name, outcomes)),
        `tuning misses (${misses.length}):`,
        ...misses.map(
          (o) => `  ${o.id}: expected ${JSON.stringify(o.expected)}, got ${JSON.stringify(o.got)}`,
        ),
      ].join('\n'),
    );
  });

  it.each(rows.map(([name, samples]) => [name, samples] as const))(
    '%s: the list has samples',
    (_, samples) => {
      expect(samples.length).toBeGreaterThan(0);
    },
  );

  it('uses every id once, all prefixed b3-', () => {
    const ids = rows.flatMap(([, samples]) => samples.map((x) => x.id));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.filter((id) => !id.startsWith('b3-'))).toEqual([]);
  });
});
