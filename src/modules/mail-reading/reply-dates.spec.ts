/**
 * The rules of reading days and referrals (docs/reading-dates.md), one case each; the sample set
 * (`reply-dates-samples.spec.ts`) measures how often they are right.
 */
import { readFollowUpDate, readReferral, readReturnDate } from './reply-dates.js';

/** Tuesday 10 November 2026. */
const REPLY = new Date('2026-11-10T09:30:00Z');

describe('readFollowUpDate', () => {
  it('reads a month alone as its first working day, flagged monthOnly', () => {
    expect(readFollowUpDate('Try me in May.', REPLY)).toEqual({ day: '2027-05-03', monthOnly: true });
  });

  it('reads "after the 15th" as the 16th, and "busy until" a day as the day after', () => {
    expect(readFollowUpDate('After the 15th of January please.', REPLY)?.day).toBe('2027-01-16');
    expect(readFollowUpDate('Wir sind bis zum 4. Dezember ausgebucht.', REPLY)?.day).toBe('2026-12-05');
  });

  it('reads the reply’s own words, not the quoted history under it', () => {
    const body =
      'Not right now, please get back to me in March.\n\nOn Tue, Sam wrote:\n> Could we talk on 15 January?\n';
    expect(readFollowUpDate(body, REPLY)).toEqual({ day: '2027-03-01', monthOnly: true });
    expect(readFollowUpDate('Not right now.\n\nOn Tue, Sam wrote:\n> Free in March?\n', REPLY)).toBeNull();
  });

  it('counts relative times from the reply date, not from today', () => {
    expect(readFollowUpDate('en dos semanas', new Date('2026-03-05T08:00:00Z'))?.day).toBe('2026-03-19');
  });

  it('ignores a past date and one more than a year ahead', () => {
    expect(readFollowUpDate('Thanks for your note of 3 November.', REPLY)).toBeNull();
    expect(readFollowUpDate('Try me on 1 March 2028.', REPLY)).toBeNull();
    expect(readFollowUpDate('Try me on 1 March 2027.', REPLY)?.day).toBe('2027-03-01');
  });

  it('sets nothing for vague or hedged times', () => {
    for (const text of [
      'Q3',
      'after the holidays',
      'next week maybe',
      'nach den Feiertagen',
      'à la rentrée',
      'quizás el mes que viene',
    ]) {
      expect(readFollowUpDate(text, REPLY)).toBeNull();
    }
  });

  it('reads "2-3 weeks" as no date, and a dash date only with its year', () => {
    expect(readFollowUpDate('Try me in 2-3 weeks.', REPLY)).toBeNull();
    expect(readFollowUpDate('Try me on 05-12-2026.', REPLY)?.day).toBe('2026-12-05');
  });

  it('reads numeric dates day first, month first only in English that is clearly US', () => {
    expect(readFollowUpDate('Call me on 5/12.', REPLY)?.day).toBe('2026-12-05');
    expect(readFollowUpDate('Llámame el 5/12.', REPLY)?.day).toBe('2026-12-05');
    expect(readFollowUpDate('Call me 12/15 or 12/5.', REPLY)?.day).toBe('2026-12-15');
  });
});

describe('readFollowUpDate: the day asked for, and week and month words', () => {
  it('reads a German calendar week as the Monday of that ISO week, next year’s once it is over', () => {
    expect(readFollowUpDate('Melden Sie sich gerne in KW 47 wieder.', REPLY)?.day).toBe('2026-11-16');
    expect(readFollowUpDate('Bitte erst wieder in der 3. KW.', REPLY)?.day).toBe('2027-01-18');
    expect(readFollowUpDate('Try me in calendar week 2/2027.', REPLY)?.day).toBe('2027-01-11');
  });

  it('reads the beginning of a month as that month', () => {
    expect(readFollowUpDate('Lass uns Anfang Februar telefonieren.', REPLY)).toEqual({
      day: '2027-02-01',
      monthOnly: true,
    });
    expect(readFollowUpDate('Recontactez-moi début mars.', REPLY)).toEqual({
      day: '2027-03-01',
      monthOnly: true,
    });
  });

  it('reads "end of next week" as next week’s Friday', () => {
    expect(readFollowUpDate("Let's talk at the end of next week.", REPLY)?.day).toBe('2026-11-20');
    expect(readFollowUpDate('Rufen Sie mich Ende nächster Woche an.', REPLY)?.day).toBe('2026-11-20');
  });

  it('prefers the day the writer asks to be contacted on over other time words', () => {
    for (const [text, day] of [
      ['We are closed tomorrow and all next week; please contact me again on 3 December.', '2026-12-03'],
      ['Nächste Woche bin ich unterwegs. Melden Sie sich am 1. Dezember.', '2026-12-01'],
      ['Demain je pars en congé pour toute la semaine. Recontactez-moi le 2 décembre.', '2026-12-02'],
      ['Mañana salgo de viaje. Escríbeme a partir del 9 de diciembre.', '2026-12-09'],
      ['Our budget review is in late November, so follow up with me on December 4th.', '2026-12-04'],
    ]) {
      expect([text, readFollowUpDate(text, REPLY)?.day]).toEqual([text, day]);
    }
  });

  it('reads "on or after" a day, and its German and French forms, as that day itself', () => {
    expect(readFollowUpDate('Please revisit this with me on or after 2027-01-11.', REPLY)?.day).toBe(
      '2027-01-11',
    );
    expect(readFollowUpDate('Melden Sie sich am oder nach dem 11.01.2027.', REPLY)?.day).toBe('2027-01-11');
    expect(readFollowUpDate('Recontactez-moi le ou après le 11 janvier.', REPLY)?.day).toBe('2027-01-11');
    expect(readFollowUpDate('Contact me after 11 January.', REPLY)?.day).toBe('2027-01-12');
  });

  it('reads a US date with its year month first when day first would be past', () => {
    expect(readFollowUpDate('Please follow up on 12/01/2026.', REPLY)?.day).toBe('2026-12-01');
    expect(readFollowUpDate('Please follow up on 05/12/2026.', REPLY)?.day).toBe('2026-12-05');
  });

  it('sets nothing for a wish of a good end of the year, office hours, phone numbers, "maintenant", "Mon"', () => {
    expect(readFollowUpDate("Pas pour le moment. Bonne fin d'année à vous !", REPLY)).toBeNull();
    expect(readFollowUpDate('Not now. You can call us Monday to Friday.', REPLY)).toBeNull();
    for (const text of [
      'Not now, thanks. Tel: 06/12 11 30 45',
      'Pas maintenant, merci. Mon portable : 06 12 11 30 45',
    ]) {
      expect([readFollowUpDate(text, REPLY), readReturnDate(text, REPLY)]).toEqual([null, null]);
    }
  });
});

describe('readReturnDate', () => {
  it('gives the last day away for "until" and the day back for "back on"', () => {
    expect(readReturnDate('Out of office until 5 December.', REPLY)).toEqual({
      day: '2026-12-05',
      monthOnly: false,
      dayBack: false,
    });
    expect(readReturnDate('Ab dem 07.12. wieder im Büro.', REPLY)).toEqual({
      day: '2026-12-07',
      monthOnly: false,
      dayBack: true,
    });
  });

  it('prefers the day back when both are written, and the end of a range', () => {
    expect(readReturnDate('Absent du 9 au 20 novembre, de retour le 23 novembre.', REPLY)?.day).toBe(
      '2026-11-23',
    );
    expect(readReturnDate('Estaré fuera del 9 al 20 de noviembre.', REPLY)?.day).toBe('2026-11-20');
  });

  it('reads two days joined by a dash as a range, and a back word as the next day’s when one follows', () => {
    expect(readReturnDate("I'm on leave 23 Nov – 4 Dec.", REPLY)?.day).toBe('2026-12-04');
    expect(readReturnDate('Je serai absent à compter du 12 novembre et de retour le 20.', REPLY)).toEqual({
      day: '2026-11-20',
      monthOnly: false,
      dayBack: true,
    });
    expect(readReturnDate('Volveré a partir del día 16.', REPLY)?.day).toBe('2026-11-16');
    expect(readReturnDate('Back on 2026/11/20.', REPLY)?.day).toBe('2026-11-20');
  });

  it('reads an English ordinal day after a cue word, and "fin d\'année"', () => {
    expect(readReturnDate('Out of office till 20th, back on 23rd.', REPLY)).toEqual({
      day: '2026-11-23',
      monthOnly: false,
      dayBack: true,
    });
    expect(readFollowUpDate("Je suis débordé jusqu'à la fin d'année.", REPLY)?.day).toBe('2027-01-01');
  });

  it('reads a calendar week as its Monday, and a range across months as its end', () => {
    expect(readReturnDate('Ab KW 49 bin ich wieder im Büro.', REPLY)).toEqual({
      day: '2026-11-30',
      monthOnly: false,
      dayBack: true,
    });
    expect(
      readReturnDate('Wir haben vom 23. Dezember 2026 bis 6. Januar 2027 geschlossen.', REPLY)?.day,
    ).toBe('2027-01-06');
    expect(
      readReturnDate('Fermé du 19 décembre 2026 au 4 janvier 2027. Réouverture le 5 janvier.', REPLY),
    ).toEqual({ day: '2027-01-05', monthOnly: false, dayBack: true });
  });

  it('reads a US date with its year, and never office hours', () => {
    expect(readReturnDate('I am out through 12/01/2026. Support: Monday–Friday, 9am–5pm.', REPLY)?.day).toBe(
      '2026-12-01',
    );
    expect(readReturnDate('Bis 20.11. nicht im Haus. Zentrale: Mo–Fr 8:00–16:00 Uhr.', REPLY)?.day).toBe(
      '2026-11-20',
    );
  });

  it('reads a weekday with its ordinal day as the next date that is both, even before a full stop', () => {
    expect(readReturnDate('I will be back at 9:00 on Monday 7th.', REPLY)?.day).toBe('2026-12-07');
    expect(readReturnDate('Zurück am Montag, 7. Dezember.', REPLY)?.day).toBe('2026-12-07');
  });

  it('never takes the start of an absence for a return', () => {
    expect(readReturnDate('I am out of the office from 2 December.', REPLY)).toBeNull();
  });
});

describe('readReferral', () => {
  it('takes one address at the replier’s registrable domain, never the replier’s own', () => {
    const ten = Array.from({ length: 10 }, (_, i) => `p${i}@acme.com`).join(', ');
    expect(readReferral(`Ask any of: ${ten}`, 'me@acme.com')?.email).toBe('p0@acme.com');
    expect(readReferral('Write to me@acme.com or to you@acme.com', 'me@acme.com')?.email).toBe(
      'you@acme.com',
    );
  });

  it('an address listed first and named again after a cue is the one the cue points to', () => {
    const ten = Array.from({ length: 10 }, (_, i) => `p${i}@acme.com`).join(', ');
    const text = `Not me. The team: ${ten}. Please contact Jane Roe (p3@acme.com) instead.`;
    expect(readReferral(text, 'me@acme.com')).toEqual({
      email: 'p3@acme.com',
      firstName: 'Jane',
      lastName: 'Roe',
      sameDomain: true,
    });
  });

  it('answers another domain only when asked to, flagged sameDomain: false', () => {
    expect(readReferral('Please contact jane@other.org.', 'me@acme.com')).toBeNull();
    expect(readReferral('Please contact jane@other.org.', 'me@acme.com', { anyDomain: true })).toEqual({
      email: 'jane@other.org',
      firstName: null,
      lastName: null,
      sameDomain: false,
    });
  });

  it('drops colleague words and their inflections from the name', () => {
    expect(
      readReferral('Bitte wenden Sie sich an unseren Kollegen Jan Vogt: jan.vogt@acme.de', 'me@acme.de'),
    ).toMatchObject({ email: 'jan.vogt@acme.de', firstName: 'Jan', lastName: 'Vogt' });
    expect(
      readReferral('Escriba a mis compañeros Lucía Ramos (lucia.ramos@acme.es).', 'me@acme.es'),
    ).toMatchObject({ firstName: 'Lucía', lastName: 'Ramos' });
  });

  it('takes the name before a comma in brackets after the address, and a name the address carries over nearer words', () => {
    expect(
      readReferral('Escriba a jgarcia@sur.es (Javier García, responsable de compras).', 'mlopez@sur.es'),
    ).toMatchObject({ firstName: 'Javier', lastName: 'García' });
    expect(
      readReferral('Wenden Sie sich an Sabine Wolf aus der IT (s.wolf@it.gruppe.de).', 'p@gruppe.de'),
    ).toMatchObject({ email: 's.wolf@it.gruppe.de', firstName: 'Sabine', lastName: 'Wolf' });
    // Without a name the address carries, the nearest words still name the person.
    expect(readReferral('Please ask Jane Roe (jr1@acme.com).', 'me@acme.com')).toMatchObject({
      firstName: 'Jane',
      lastName: 'Roe',
    });
  });

  it('ignores quoted history and the signature', () => {
    const text = 'Not me, sorry.\n\nBest regards,\nTom\nAssistant: lisa@acme.com\n\n> From: ann@acme.com';
    expect(readReferral(text, 'tom@acme.com')).toBeNull();
  });
});

describe('bounded work', () => {
  it('reads at most the first 4,000 characters of hostile text quickly', () => {
    const hostile = [
      '1 '.repeat(50_000),
      '1/1-'.repeat(25_000),
      '12.'.repeat(30_000),
      'Jane '.repeat(20_000) + 'j@acme.com',
    ];
    for (const text of hostile) {
      const started = performance.now();
      readFollowUpDate(text, REPLY);
      readReturnDate(text, REPLY);
      readReferral(text, 'tom@acme.com');
      // Measured 4–150 ms on a loaded 2-core machine; the bound leaves room for a slow CI.
      expect(performance.now() - started).toBeLessThan(1000);
    }
  });
});
