import { awayUntil, firstWorkingDayAfter, isAwayNotice, MAX_HOLD_DAYS } from './away.js';

describe('away notices', () => {
  it.each([
    ['Out of Office', ''],
    ['Abwesenheitsnotiz', ''],
    ['Réponse automatique', 'Je suis absente du bureau'],
    ['Respuesta automática', 'Estoy fuera de la oficina hasta el lunes'],
    ['Automatic reply', 'I am on vacation until Monday'],
  ])('reads %s / %s as away', (subject, body) => {
    expect(isAwayNotice(subject, body)).toBe(true);
  });

  it('does not read a ticket acknowledgement as away', () => {
    expect(isAwayNotice('Automatic reply', 'We received your request; ticket #4411 was opened.')).toBe(false);
  });

  it('holds until the first working day after the return day', () => {
    expect(firstWorkingDayAfter('2026-12-10').toISOString()).toBe('2026-12-11T00:00:00.000Z'); // Thu → Fri
    expect(firstWorkingDayAfter('2026-12-11').toISOString()).toBe('2026-12-14T00:00:00.000Z'); // Fri → Mon
  });

  it('caps at 60 days, falls back to the configured days, and holds nothing at 0 without a date', () => {
    const at = new Date('2026-11-29T09:00:00Z');
    expect(awayUntil('2027-06-01', at, 3)!.getTime()).toBe(at.getTime() + MAX_HOLD_DAYS * 86_400_000);
    expect(awayUntil(null, at, 3)!.getTime()).toBe(at.getTime() + 3 * 86_400_000);
    expect(awayUntil('2026-11-01', at, 3)!.getTime()).toBe(at.getTime() + 3 * 86_400_000);
    expect(awayUntil(null, at, 0)).toBeNull();
  });
});
