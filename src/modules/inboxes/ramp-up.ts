/**
 * An inbox's limit for the day (CONTRACT §19): its `daily_limit`, or with a ramp-up
 * `min(daily_limit, start + increase_per_day × whole days since the ramp began)`. The send path
 * checks the same rule in SQL (`EFFECTIVE_DAILY_LIMIT_SQL`, on the row it already updates), so a
 * ramp costs no extra query per send; `effectiveDailyLimit` is its twin for views and pre-checks.
 */
import type { Inbox } from './entities/inbox.entity.js';

const DAY_MS = 86_400_000;

export type RampFields = Pick<Inbox, 'dailyLimit' | 'rampStart' | 'rampIncreasePerDay' | 'rampStartedAt'>;

export function effectiveDailyLimit(i: RampFields, now: Date = new Date()): number {
  if (i.rampStart === null || i.rampIncreasePerDay === null || i.rampStartedAt === null) return i.dailyLimit;
  const days = Math.max(0, Math.floor((now.getTime() - i.rampStartedAt.getTime()) / DAY_MS));
  return Math.min(i.dailyLimit, i.rampStart + i.rampIncreasePerDay * days);
}

/** The same rule over an `inboxes` row in SQL (the columns unqualified, or qualified by `alias`). */
export const effectiveDailyLimitSql = (alias = ''): string => {
  const c = (name: string): string => (alias ? `${alias}.${name}` : name);
  const days = `greatest(0, floor(extract(epoch FROM now() - ${c('ramp_started_at')}) / 86400))::bigint`;
  return `(CASE WHEN ${c('ramp_started_at')} IS NULL THEN ${c('daily_limit')} ELSE least(${c('daily_limit')}::bigint,
    ${c('ramp_start')} + ${c('ramp_increase_per_day')}::bigint * ${days})::int END)`;
};

export const EFFECTIVE_DAILY_LIMIT_SQL = effectiveDailyLimitSql();
