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

export class CreateCampaignDto {
  @ApiProperty({ minLength: 1, maxLength: 200 })
  @IsString()
  @Length(1, 200)
  @NoNulCharacters()
  name: string;

  @ApiPropertyOptional({ type: Number, nullable: true, description: 'A sequence of this workspace' })
  @ValidateIf((_, v) => v !== null && v !== undefined)
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  sequence_id?: number | null;

  @ApiPropertyOptional({ type: [String], format: 'uuid', maxItems: MAX_CAMPAIGN_INBOXES })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(MAX_CAMPAIGN_INBOXES)
  @ArrayUnique()
  @IsUUID('all', { each: true })
  inbox_ids?: string[];

  @ApiPropertyOptional({ type: CampaignScheduleDto, nullable: true })
  @ValidateIf((_, v) => v !== null && v !== undefined)
  @IsObject()
  @ValidateNested()
  @Type(() => CampaignScheduleDto)
  schedule?: CampaignScheduleDto | null;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    minimum: 1,
    maximum: 100000,
    description: 'Sends per UTC day across the campaign; null = no campaign cap',
  })
  @ValidateIf((_, v) => v !== null && v !== undefined)
  @IsInt()
  @Min(1)
  @Max(100000)
  daily_limit?: number | null;

  @ApiPropertyOptional({ default: true })
  @IsOptionalNotNull()
  @IsBoolean()
  stop_on_reply?: boolean;
}

export class UpdateCampaignDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200 })
  @IsOptionalNotNull()
  @IsString()
  @Length(1, 200)
  @NoNulCharacters()
  name?: string;

  @ApiPropertyOptional({ type: Number, nullable: true, description: 'Only while the campaign is draft' })
  @ValidateIf((_, v) => v !== null && v !== undefined)
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  sequence_id?: number | null;

  @ApiPropertyOptional({ type: [String], format: 'uuid', maxItems: MAX_CAMPAIGN_INBOXES })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(MAX_CAMPAIGN_INBOXES)
  @ArrayUnique()
  @IsUUID('all', { each: true })
  inbox_ids?: string[];

  @ApiPropertyOptional({ type: CampaignScheduleDto, nullable: true })
  @ValidateIf((_, v) => v !== null && v !== undefined)
  @IsObject()
  @ValidateNested()
  @Type(() => CampaignScheduleDto)
  schedule?: CampaignScheduleDto | null;

  @ApiPropertyOptional({ type: Number, nullable: true, minimum: 1, maximum: 100000 })
  @ValidateIf((_, v) => v !== null && v !== undefined)
  @IsInt()
  @Min(1)
  @Max(100000)
  daily_limit?: number | null;

  @ApiPropertyOptional()
  @IsOptionalNotNull()
  @IsBoolean()
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

export class CampaignResponseDto {
  @ApiProperty() id: number;
  @ApiProperty() name: string;
  @ApiProperty({ type: Number, nullable: true }) sequence_id: number | null;
  @ApiProperty({ enum: CAMPAIGN_STATUSES }) status: string;
  @ApiProperty({ type: [String], format: 'uuid' }) inbox_ids: string[];
  @ApiProperty({ type: CampaignScheduleViewDto, nullable: true }) schedule: CampaignScheduleViewDto | null;
  @ApiProperty({ type: Number, nullable: true }) daily_limit: number | null;
  @ApiProperty() stop_on_reply: boolean;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) activated_at: string | null;
}
