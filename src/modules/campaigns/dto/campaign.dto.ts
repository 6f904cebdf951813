import { applyDecorators } from '@nestjs/common';
import { MAX_ID } from '../../../common/http/id-params.js';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsString,
  IsUUID,
  Length,
  Matches,
  Max,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { Check } from '../../../common/http/check.js';
import {
  CAMPAIGN_VERIFICATION_SETTINGS,
  type CampaignStatus,
  type CampaignVerification,
  type StopOnReplyScope,
  type Weekday,
} from '../entities/campaign.entity.js';
import { TIME_RE, WEEKDAYS } from '../schedule.js';
import { CAMPAIGN_STATUSES } from '../campaign-state.js';
import { IsOptionalNotNull, NoNulCharacters } from '../../sequences/dto/text-rules.js';
import type { CampaignView } from '../campaign.view.js';

export const MAX_CAMPAIGN_INBOXES = 100;
export const STOP_ON_REPLY_SCOPES: readonly StopOnReplyScope[] = ['contact', 'domain'];
export const PAUSED_REASONS = ['manual', 'bounce_rate'] as const;

const ISO_TIMESTAMP_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:\d{2})$/;

/** An ISO 8601 timestamp with its offset (`2026-12-01T09:00:00Z`, `…+01:00`) naming a real instant. */
export function isIsoTimestamp(value: unknown): value is string {
  if (typeof value !== 'string' || !ISO_TIMESTAMP_RE.test(value) || !Number.isFinite(Date.parse(value)))
    return false;
  // Date.parse rolls impossible days over (02-30 → 03-02): the calendar date must exist as written.
  const [y, mo, d] = value.slice(0, 10).split('-').map(Number);
  const day = new Date(Date.UTC(y, mo - 1, d));
  return day.getUTCFullYear() === y && day.getUTCMonth() === mo - 1 && day.getUTCDate() === d;
}

export class CampaignScheduleDto {
  @ApiProperty({ example: 'Europe/Paris', description: 'IANA time zone name' })
  @IsString()
  @Length(1, 64)
  timezone: string;

  @ApiProperty({ enum: WEEKDAYS, isArray: true, example: ['mon', 'tue', 'wed', 'thu', 'fri'] })
  @IsArray()
  @ArrayUnique()
  @IsIn(WEEKDAYS, { each: true })
  days: Weekday[];

  @ApiProperty({ example: '09:00', description: 'HH:MM, inclusive' })
  @IsString()
  @Matches(TIME_RE, { message: 'start_time must be HH:MM' })
  start_time: string;

  @ApiProperty({ example: '17:00', description: 'HH:MM, exclusive; may be 24:00' })
  @IsString()
  @Matches(TIME_RE, { message: 'end_time must be HH:MM (24:00 allowed)' })
  end_time: string;
}

/** A nullable field: absent and null both skip the checks (null clears it). */
const NullableOr = (): PropertyDecorator => ValidateIf((_, v) => v !== null && v !== undefined);

/** The campaign fields create and update share, validated the same way in both. */
const Field = {
  sequenceId: (description: string): PropertyDecorator =>
    applyDecorators(
      ApiPropertyOptional({ type: Number, nullable: true, description }),
      NullableOr(),
      IsInt(),
      Min(1),
      Max(MAX_ID),
    ),
  inboxIds: (): PropertyDecorator =>
    applyDecorators(
      ApiPropertyOptional({ type: [String], format: 'uuid', maxItems: MAX_CAMPAIGN_INBOXES }),
      IsOptionalNotNull(),
      IsArray(),
      ArrayMaxSize(MAX_CAMPAIGN_INBOXES),
      ArrayUnique(),
      IsUUID('all', { each: true }),
    ),
  schedule: (): PropertyDecorator =>
    applyDecorators(
      ApiPropertyOptional({ type: CampaignScheduleDto, nullable: true }),
      NullableOr(),
      IsObject(),
      ValidateNested(),
      Type(() => CampaignScheduleDto),
    ),
  dailyLimit: (description?: string): PropertyDecorator =>
    applyDecorators(
      ApiPropertyOptional({
        type: Number,
        nullable: true,
        minimum: 1,
        maximum: 100000,
        ...(description ? { description } : {}),
      }),
      NullableOr(),
      IsInt(),
      Min(1),
      Max(100000),
    ),
  stopOnReply: (options: { default?: boolean } = {}): PropertyDecorator =>
    applyDecorators(ApiPropertyOptional(options), IsOptionalNotNull(), IsBoolean()),
  startAt: (): PropertyDecorator =>
    applyDecorators(
      ApiPropertyOptional({
        type: String,
        format: 'date-time',
        nullable: true,
        example: '2026-12-01T08:00:00Z',
        description:
          'Scheduled start: no step of the campaign is sent before this instant, even while active (null: no scheduled start). Changing it re-evaluates deferred enrollments',
      }),
      NullableOr(),
      Check(
        'isIsoTimestamp',
        isIsoTimestamp,
        (p) => `${p} must be an ISO 8601 timestamp with an offset (e.g. 2026-12-01T08:00:00Z) or null`,
      ),
    ),
  sendInContactTimezone: (options: { default?: boolean } = {}): PropertyDecorator =>
    applyDecorators(
      ApiPropertyOptional({
        ...options,
        example: true,
        description:
          "Read the schedule's days and hours in each contact's `timezone` (IANA), falling back to `schedule.timezone` for contacts without one",
      }),
      IsOptionalNotNull(),
      IsBoolean(),
    ),
  stopOnReplyScope: (options: { default?: StopOnReplyScope } = {}): PropertyDecorator =>
    applyDecorators(
      ApiPropertyOptional({
        ...options,
        enum: STOP_ON_REPLY_SCOPES,
        example: 'domain',
        description:
          "With `stop_on_reply`: `contact` stops the replier's enrollment; `domain` also stops every active or paused enrollment of this campaign whose contact shares the replier's email domain (never for free-mail domains)",
      }),
      IsOptionalNotNull(),
      IsIn(STOP_ON_REPLY_SCOPES),
    ),
  verification: (options: { default?: CampaignVerification } = {}): PropertyDecorator =>
    applyDecorators(
      ApiPropertyOptional({
        ...options,
        enum: CAMPAIGN_VERIFICATION_SETTINGS,
        example: 'skip_risky',
        description:
          'Which address verdicts are never sent to: `skip_invalid` skips `invalid` contacts, `skip_risky` also `risky` ones, `off` checks nothing. A skipped enrollment ends `skipped` with `stop_reason` `address_invalid` or `address_risky`; a `pending` contact waits for its verdict at most 10 minutes; `unknown` is sent',
      }),
      IsOptionalNotNull(),
      IsIn(CAMPAIGN_VERIFICATION_SETTINGS, {
        message: `verification must be one of ${CAMPAIGN_VERIFICATION_SETTINGS.join(', ')}`,
      }),
    ),
};

export class CreateCampaignDto {
  @ApiProperty({ minLength: 1, maxLength: 200 })
  @IsString()
  @Length(1, 200)
  @NoNulCharacters()
  name: string;

  @Field.sequenceId('A sequence of this workspace')
  sequence_id?: number | null;

  @Field.inboxIds()
  inbox_ids?: string[];

  @Field.schedule()
  schedule?: CampaignScheduleDto | null;

  @Field.dailyLimit('Sends per UTC day across the campaign; null = no campaign cap')
  daily_limit?: number | null;

  @Field.stopOnReply({ default: true })
  stop_on_reply?: boolean;

  @Field.startAt()
  start_at?: string | null;

  @Field.sendInContactTimezone({ default: false })
  send_in_contact_timezone?: boolean;

  @Field.stopOnReplyScope({ default: 'contact' })
  stop_on_reply_scope?: StopOnReplyScope;

  @Field.verification({ default: 'skip_invalid' })
  verification?: CampaignVerification;
}

export class UpdateCampaignDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200 })
  @IsOptionalNotNull()
  @IsString()
  @Length(1, 200)
  @NoNulCharacters()
  name?: string;

  @Field.sequenceId('Only while the campaign is draft')
  sequence_id?: number | null;

  @Field.inboxIds()
  inbox_ids?: string[];

  @Field.schedule()
  schedule?: CampaignScheduleDto | null;

  @Field.dailyLimit()
  daily_limit?: number | null;

  @Field.stopOnReply()
  stop_on_reply?: boolean;

  @Field.startAt()
  start_at?: string | null;

  @Field.sendInContactTimezone()
  send_in_contact_timezone?: boolean;

  @Field.stopOnReplyScope()
  stop_on_reply_scope?: StopOnReplyScope;

  @Field.verification()
  verification?: CampaignVerification;

  @ApiPropertyOptional({
    enum: CAMPAIGN_STATUSES,
    description:
      'draft → active ↔ paused; active|paused → archived. Activation checks readiness (422). Pausing sets `paused_reason: manual`; re-activating clears `paused_reason` and starts a new bounce-protection window',
  })
  @IsOptionalNotNull()
  @IsIn(CAMPAIGN_STATUSES)
  status?: CampaignStatus;
}

export class CampaignScheduleViewDto {
  @ApiProperty() timezone: string;
  @ApiProperty({ enum: WEEKDAYS, isArray: true }) days: string[];
  @ApiProperty() start_time: string;
  @ApiProperty() end_time: string;
}

export class CampaignResponseDto implements CampaignView {
  @ApiProperty() id: number;
  @ApiProperty() name: string;
  @ApiProperty({ type: Number, nullable: true }) sequence_id: number | null;
  @ApiProperty({ enum: CAMPAIGN_STATUSES }) status: CampaignView['status'];
  @ApiProperty({ type: [String], format: 'uuid' }) inbox_ids: string[];
  @ApiProperty({ type: CampaignScheduleViewDto, nullable: true }) schedule: CampaignView['schedule'];
  @ApiProperty({ type: Number, nullable: true }) daily_limit: number | null;
  @ApiProperty() stop_on_reply: boolean;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) activated_at: string | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: '2026-12-01T08:00:00.000Z',
    description: 'Nothing is sent before this instant',
  })
  start_at: string | null;
  @ApiProperty({ example: false }) send_in_contact_timezone: boolean;
  @ApiProperty({ enum: STOP_ON_REPLY_SCOPES, example: 'contact' }) stop_on_reply_scope: StopOnReplyScope;
  @ApiProperty({ enum: CAMPAIGN_VERIFICATION_SETTINGS, example: 'skip_invalid' })
  verification: CampaignVerification;
  @ApiProperty({
    type: String,
    enum: PAUSED_REASONS,
    nullable: true,
    example: null,
    description:
      'Why a paused campaign is paused: `manual` (PATCH) or `bounce_rate` (paused by the service: too many hard bounces among its last 100 sends); null unless paused',
  })
  paused_reason: CampaignView['paused_reason'];
}
