import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { QueryIdFilter } from '../../../common/http/id-params.js';
import { Check } from '../../../common/http/check.js';
import { PageQueryDto } from '../../../common/http/pagination.js';
import { isRealDate } from '../../../common/time/dates.js';

const DAY_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A calendar day `YYYY-MM-DD` that exists (years 1..9999). */
export function isDay(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const m = DAY_RE.exec(value);
  return !!m && Number(m[1]) >= 1 && isRealDate(Number(m[1]), Number(m[2]), Number(m[3]));
}

const IsDay = (): PropertyDecorator =>
  Check('isDay', isDay, (property) => `${property} must be a date YYYY-MM-DD`);

export class DailyMetricsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({
    format: 'date',
    description: 'First UTC day, inclusive (default: 29 days before `to`)',
  })
  @IsOptional()
  @IsDay()
  from?: string;

  @ApiPropertyOptional({ format: 'date', description: 'Last UTC day, inclusive (default: today, UTC)' })
  @IsOptional()
  @IsDay()
  to?: string;

  @QueryIdFilter('campaign_id', { description: 'Only this campaign' })
  campaign_id?: number;
}

export interface DailyMetricView {
  date: string;
  campaign_id: number;
  sent: number;
  replied: number;
  interested: number;
  auto_replied: number;
  bounced: number;
  soft_bounced: number;
  complained: number;
  unsubscribed: number;
  enrolled: number;
  completed: number;
}

export class DailyMetricResponseDto implements DailyMetricView {
  @ApiProperty({ format: 'date', description: 'UTC day' }) date: string;
  @ApiProperty() campaign_id: number;
  @ApiProperty({ description: 'Messages sent' }) sent: number;
  @ApiProperty({ description: 'Replies received (auto-replies excluded)' }) replied: number;
  @ApiProperty({
    description:
      "Replies categorised `interested` (by the rules, the workspace's AI provider or a correction), on the day the reply was received",
  })
  interested: number;
  @ApiProperty({ description: 'Auto-replies (out of office and similar)' }) auto_replied: number;
  @ApiProperty({
    description:
      'Hard bounces (the address cannot receive mail: user_unknown, host_unknown, has_moved, not_accept)',
  })
  bounced: number;
  @ApiProperty({
    description:
      'Soft bounces (every other reason: mailbox full, blocked by policy, ...), not counted in `bounced`',
  })
  soft_bounced: number;
  @ApiProperty({
    description:
      'Spam complaints (RFC 5965 feedback reports matched to a sent message), on the campaign of that message; a second report of the same address is not counted',
  })
  complained: number;
  @ApiProperty({ description: 'Unsubscribes, on the campaign of the message they came from' })
  unsubscribed: number;
  @ApiProperty({ description: 'Contacts enrolled' }) enrolled: number;
  @ApiProperty({ description: 'Enrollments that finished their sequence' }) completed: number;
}
