import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { QueryIdFilter } from '../../../common/http/id-params.js';
import { Check } from '../../../common/http/check.js';
import { isDay } from './daily-metrics.dto.js';

const IsDay = (): PropertyDecorator =>
  Check('isDay', isDay, (property) => `${property} must be a date YYYY-MM-DD`);

export class StepMetricsQueryDto {
  @QueryIdFilter('campaign_id', { required: true, example: 42, description: 'The campaign (required)' })
  campaign_id: number;

  @QueryIdFilter('subsequence_id', {
    description:
      "Only the steps of this subsequence of the campaign (default: all, the campaign's own first)",
  })
  subsequence_id?: number;

  @ApiPropertyOptional({
    format: 'date',
    example: '2026-11-01',
    description: 'First UTC day, inclusive (default: 29 days before `to`)',
  })
  @IsOptional()
  @IsDay()
  from?: string;

  @ApiPropertyOptional({
    format: 'date',
    example: '2026-11-30',
    description: 'Last UTC day, inclusive (default: today, UTC)',
  })
  @IsOptional()
  @IsDay()
  to?: string;
}

export interface StepMetricView {
  campaign_id: number;
  subsequence_id: number | null;
  step_position: number | null;
  variant: string | null;
  sent: number;
  replied: number;
  interested: number;
  bounced: number;
  soft_bounced: number;
  unsubscribed: number;
  skipped_invalid: number;
  skipped_risky: number;
}

export class StepMetricResponseDto implements StepMetricView {
  @ApiProperty({ example: 42 }) campaign_id: number;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: null,
    description:
      "The subsequence whose step this is (the enrollment the message was sent to ran it); null: the campaign's own sequence",
  })
  subsequence_id: number | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    example: 1,
    description: 'Sequence step; null for facts whose thread had no message sent by a step',
  })
  step_position: number | null;
  @ApiProperty({
    type: String,
    nullable: true,
    enum: ['A', 'B', 'C', 'D', 'E'],
    example: 'B',
    description: 'Step variant; null for messages sent before variants existed',
  })
  variant: string | null;
  @ApiProperty({ example: 500, description: 'Messages sent with this step and variant' })
  sent: number;
  @ApiProperty({
    example: 12,
    description: 'Replies, counted for the variant of the last message sent in the thread',
  })
  replied: number;
  @ApiProperty({
    example: 4,
    description:
      'Replies categorised `interested`, counted like `replied` (the variant of the last message sent in the thread)',
  })
  interested: number;
  @ApiProperty({ example: 3, description: 'Hard bounces of messages with this step and variant' })
  bounced: number;
  @ApiProperty({ example: 2, description: 'Soft bounces of messages with this step and variant' })
  soft_bounced: number;
  @ApiProperty({
    example: 1,
    description: 'Unsubscribes, counted for the variant of the last message sent to the enrollment',
  })
  unsubscribed: number;
  @ApiProperty({
    example: 5,
    description:
      'Enrollments whose step was not sent because the address was verified `invalid` (campaign `verification`); no message, so counted with a null variant',
  })
  skipped_invalid: number;
  @ApiProperty({
    example: 2,
    description:
      'Enrollments whose step was not sent because the address was verified `risky` under `skip_risky`',
  })
  skipped_risky: number;
}
