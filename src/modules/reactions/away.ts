/**
 * Out-of-office notices (CONTRACT §23): which auto-replies say their author is away, and until when
 * the enrollment's next step waits. Pure. The return day itself is read by
 * `mail-reading/reply-dates.ts` (`readReturnDate`).
 */

/** Longest hold: an away notice never holds a step further than this from its arrival. */
export const MAX_HOLD_DAYS = 60;
const DAY = 86_400_000;

/**
 * Away in the four languages the date reader knows: the phrases of out-of-office subjects and bodies
 * (RFC 3834 auto-replies carry no structured reason, so the words decide).
 */
const AWAY =
  /\b(out of (the )?office|ooo|away|on (annual |parental |maternity |sick )?leave|on holiday|on vacation|vacation|holidays?|travel(l)?ing|limited access|abwesen(d|heit)\w*|urlaub\w*|nicht im (büro|buero|haus)|au(ss|ß)er haus|wieder im (büro|buero)|absente?|absence|en cong(é|e)s?|hors du bureau|de retour|fuera de la oficina|ausente|vacaciones|de viaje|regreso|estar(é|e) de vuelta)\b/i;

export function isAwayNotice(subject: string, ownWords: string): boolean {
  return AWAY.test(subject) || AWAY.test(ownWords.slice(0, 2000));
}

/** The first working day (Monday to Friday) after the calendar day `day` (YYYY-MM-DD), at 00:00 UTC. */
export function firstWorkingDayAfter(day: string): Date {
  const d = new Date(`${day}T00:00:00Z`);
  do d.setUTCDate(d.getUTCDate() + 1);
  while (d.getUTCDay() === 0 || d.getUTCDay() === 6);
  return d;
}

/**
 * Until when an away notice holds: the first working day after its return day (never beyond
 * MAX_HOLD_DAYS from the notice); without a day (or one already past), `holdDays` days from the
 * notice; null when there is nothing to hold (no day and `holdDays` 0).
 */
export function awayUntil(returnDay: string | null, receivedAt: Date, holdDays: number): Date | null {
  const cap = new Date(receivedAt.getTime() + MAX_HOLD_DAYS * DAY);
  if (returnDay !== null) {
    const until = firstWorkingDayAfter(returnDay);
    if (until.getTime() > receivedAt.getTime()) return until.getTime() > cap.getTime() ? cap : until;
  }
  if (holdDays <= 0) return null;
  return new Date(receivedAt.getTime() + Math.min(holdDays, MAX_HOLD_DAYS) * DAY);
}
