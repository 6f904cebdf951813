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
import type { CampaignStatus, Weekday } from '../entities/campaign.entity.js';
import { TIME_RE, WEEKDAYS } from '../schedule.js';
import { CAMPAIGN_STATUSES } from '../campaign-state.js';
import { IsOptionalNotNull, NoNulCharacters } from '../../sequences/dto/text-rules.js';
import type { CampaignView } from '../campaign.view.js';

export const MAX_CAMPAIGN_INBOXES = 100;

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

  @ApiPropertyOptional({
    enum: CAMPAIGN_STATUSES,
    description: 'draft → active ↔ paused; active|paused → archived. Activation checks readiness (422).',
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
}
