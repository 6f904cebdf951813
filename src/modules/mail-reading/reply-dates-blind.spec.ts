/**
 * The date and referral reader measured on the sample batches written without looking at the reader
 * (`fixtures/reply-dates-samples/batch3.ts`, `batch4.ts`), each measured once before any tuning on it
 * (the figures are in docs/reading-dates.md and the commit that added the batch). The split follows the first set's rule
 * (sha1(id) beginning with 0–3 is held out): the reader is tuned on the other part only, so only the
 * tuning part's misses are printed; of the held-out part only the counts are shown. The bars are not set
 * yet: the tests only check that every list has samples and that no id is used twice.
 */
import { createHash } from 'node:crypto';
import * as batch3 from './fixtures/reply-dates-samples/batch3.js';
import * as batch4 from './fixtures/reply-dates-samples/batch4.js';
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

interface Batch {
  FOLLOW_UP: DateSample[];
  NO_DATE: DateSample[];
  AWAY: DateSample[];
  AWAY_NO_DATE: DateSample[];
  REFERRAL: ReferralSample[];
}
const BATCHES: Array<[string, Batch]> = [
  [
    'b3',
    {
      FOLLOW_UP: batch3.FOLLOW_UP_B3,
      NO_DATE: batch3.NO_DATE_B3,
      AWAY: batch3.AWAY_B3,
      AWAY_NO_DATE: batch3.AWAY_NO_DATE_B3,
      REFERRAL: batch3.REFERRAL_B3,
    },
  ],
  [
    'b4',
    {
      FOLLOW_UP: batch4.FOLLOW_UP_B4,
      NO_DATE: batch4.NO_DATE_B4,
      AWAY: batch4.AWAY_B4,
      AWAY_NO_DATE: batch4.AWAY_NO_DATE_B4,
      REFERRAL: batch4.REFERRAL_B4,
    },
  ],
];

describe.each(BATCHES)('reading dates and referrals on the blind sample batch %s', (prefix, b) => {
  const rows: [string, { id: string }[], Outcome[]][] = [
    ['follow-up dates right', b.FOLLOW_UP, datesRead(b.FOLLOW_UP, readFollowUpDate)],
    ['none set on dateless not-now', b.NO_DATE, datesRead(b.NO_DATE, readFollowUpDate)],
    ['return dates right', b.AWAY, datesRead(b.AWAY, readReturnDate)],
    ['none set on dateless away', b.AWAY_NO_DATE, datesRead(b.AWAY_NO_DATE, readReturnDate)],
    ['referrals right', b.REFERRAL, referralsRead(b.REFERRAL)],
  ];

  beforeAll(() => {
    const misses = rows.flatMap(([, , outcomes]) =>
      outcomes.filter((o) => !o.right && partOf(o.id) === 'tuning'),
    );
    console.log(
      [
        `reply-dates batch ${prefix}`,
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

  it(`uses every id once, all prefixed ${prefix}-`, () => {
    const ids = rows.flatMap(([, samples]) => samples.map((x) => x.id));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.filter((id) => !id.startsWith(`${prefix}-`))).toEqual([]);
  });
});
