/** The instant a `not_now` reply's day means (CONTRACT §23): that day at `HH:MM` in `timezone`. Pure. */

function offsetMinutes(timezone: string, at: Date): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: timezone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
  }).formatToParts(at);
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value ?? 0);
  const local = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour') % 24, get('minute'));
  return Math.round((local - Math.floor(at.getTime() / 60_000) * 60_000) / 60_000);
}

/** `day` (YYYY-MM-DD) at `time` (HH:MM) in `timezone`, as an instant. */
export function zonedInstant(day: string, time: string, timezone: string): Date {
  const [y, mo, d] = day.split('-').map(Number);
  const [h, mi] = time.split(':').map(Number);
  const wall = Date.UTC(y, mo - 1, d, h === 24 ? 0 : h, mi);
  let guess = wall - offsetMinutes(timezone, new Date(wall)) * 60_000;
  guess = wall - offsetMinutes(timezone, new Date(guess)) * 60_000;
  return new Date(guess);
}

/** A follow-up day is kept when it lies ahead of the reply and at most a year after it. */
export function followUpAt(day: string | null, time: string, timezone: string, replyAt: Date): Date | null {
  if (day === null) return null;
  const at = zonedInstant(day, time, timezone);
  if (Number.isNaN(at.getTime())) return null;
  if (at.getTime() <= replyAt.getTime() || at.getTime() > replyAt.getTime() + 366 * 86_400_000) return null;
  return at;
}
