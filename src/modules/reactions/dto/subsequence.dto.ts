import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsObject, IsString, Length, Max, Min } from 'class-validator';
import { MAX_ID } from '../../../common/http/id-params.js';
import { IsOptionalNotNull, NoNulCharacters } from '../../sequences/dto/text-rules.js';
import { REPLY_CATEGORIES } from '../../threads/reply-category.js';
import type { SubsequenceStatus, SubsequenceTrigger } from '../entities/subsequence.entity.js';
import type { SubsequenceView } from '../subsequence.view.js';

export const SUBSEQUENCE_STATUSES: readonly SubsequenceStatus[] = ['active', 'paused'];
export const MAX_START_AFTER_DAYS = 365;

export class SubsequenceTriggerDto {
  @ApiProperty({ enum: ['category', 'completed', 'referral'] }) type: SubsequenceTrigger['type'];
  @ApiPropertyOptional({
    type: [String],
    enum: REPLY_CATEGORIES.filter((c) => c !== 'unsubscribe_request'),
    description: 'With `type: category`: the reply categories that move the contact',
  })
  categories?: string[];
}

export class CreateSubsequenceDto {
  @ApiProperty({ minLength: 1, maxLength: 200 })
  @IsString()
  @Length(1, 200)
  @NoNulCharacters()
  name: string;

  @ApiProperty({ type: SubsequenceTriggerDto })
  @IsObject()
  trigger: SubsequenceTriggerDto;

  @ApiProperty({ type: 'integer', minimum: 1, description: 'A published sequence of the workspace' })
  @IsInt()
  @Min(1)
  @Max(MAX_ID)
  sequence_id: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: MAX_START_AFTER_DAYS, default: 0 })
  @IsOptionalNotNull()
  @IsInt()
  @Min(0)
  @Max(MAX_START_AFTER_DAYS)
  start_after_days?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, description: 'Evaluation order (default: last)' })
  @IsOptionalNotNull()
  @IsInt()
  @Min(0)
  @Max(1000)
  position?: number;
}

export class UpdateSubsequenceDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200 })
  @IsOptionalNotNull()
  @IsString()
  @Length(1, 200)
  @NoNulCharacters()
  name?: string;

  @ApiPropertyOptional({ type: SubsequenceTriggerDto })
  @IsOptionalNotNull()
  @IsObject()
  trigger?: SubsequenceTriggerDto;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: MAX_START_AFTER_DAYS })
  @IsOptionalNotNull()
  @IsInt()
  @Min(0)
  @Max(MAX_START_AFTER_DAYS)
  start_after_days?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 0 })
  @IsOptionalNotNull()
  @IsInt()
  @Min(0)
  @Max(1000)
  position?: number;

  @ApiPropertyOptional({ enum: SUBSEQUENCE_STATUSES })
  @IsOptionalNotNull()
  @IsIn(SUBSEQUENCE_STATUSES)
  status?: SubsequenceStatus;
}

export class SubsequenceResponseDto implements SubsequenceView {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty({ type: 'integer' }) campaign_id: number;
  @ApiProperty() name: string;
  @ApiProperty({ type: SubsequenceTriggerDto }) trigger: SubsequenceTrigger;
  @ApiProperty({ type: 'integer' }) sequence_id: number;
  @ApiProperty({ type: 'integer' }) start_after_days: number;
  @ApiProperty({ type: 'integer' }) position: number;
  @ApiProperty({ enum: SUBSEQUENCE_STATUSES }) status: SubsequenceStatus;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}
