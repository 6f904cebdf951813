/**
 * What a reply's own words say about *when* and *whom* (sequences that react): the day a "not now"
 * wants to hear back, the day an away notice names, and a person a "wrong person" reply points to.
 * Pure: no database, no network. Callers pass the reply's own words (quoted history removed,
 * `mail-reading/reply-text.ts`, which the readers apply themselves) and the reply's `Date`.
 *
 * Days are calendar days (`YYYY-MM-DD`) as written; turning one into an instant (the campaign's start
 * time in the contact's time zone, the first working day after an away date) is the caller's rule.
 *
 * How it reads (docs/reading-dates.md has the whole rule and its measured figures): a scanner built
 * from how dates are written in English, German, French and Spanish (numeric day-first dates, a day
 * and a month name, day ranges, a month alone or its beginning/middle/end, weekdays, "in two weeks",
 * "next month") finds every mention and the cue in front of it ("until", "back on", "after", "from");
 * chrono-node's parser of the reply's language reads what the scanner does not know. A vague time
 * ("Q3", "after the holidays", a hedged "next week maybe") sets nothing.
 *
 * This file is the public entry; the reader lives in `reply-dates/`: `date-scanner.ts` (the date
 * formats of the four languages, on `scan.ts`, `words.ts` and `calendar.ts`, with `periods.ts` for
 * calendar weeks and the ends of weeks, months and years, and `not-dates.ts` claiming phone numbers
 * and office hours first), `cues.ts` (the until /
 * back / after / from words around a day), `chrono-mentions.ts` and `language.ts`, `mentions.ts`
 * (every day a reply mentions), `follow-up.ts`, `return-date.ts`, and `referral.ts` with
 * `referral-names.ts`.
 */
export {
  readFollowUpDate,
  readReferral,
  readReturnDate,
  type ReadDay,
  type ReadReferral,
  type ReadReferralOptions,
} from './reply-dates/index.js';
