import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsString,
  Length,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { TEMPLATE_MAX_LENGTH } from '../templates.js';
import { IsOptionalNotNull, NoNulCharacters } from './text-rules.js';
import type { SequenceView } from '../sequence.view.js';

export const MAX_STEPS = 50;
/** One year: a longer gap between two steps is certainly a mistake. */
export const MAX_DELAY_MINUTES = 525_600;
export const SUBJECT_MAX_LENGTH = 998;

export class SequenceStepDto {
  @ApiProperty({ minimum: 1, description: 'Contiguous from 1, in array order' })
  @IsInt()
  @Min(1)
  position: number;

  @ApiProperty({
    minimum: 0,
    maximum: MAX_DELAY_MINUTES,
    description: 'Minutes after the previous step (or after enrollment for step 1)',
  })
  @IsInt()
  @Min(0)
  @Max(MAX_DELAY_MINUTES)
  delay_minutes: number;

  @ApiProperty({
    type: String,
    nullable: true,
    maxLength: SUBJECT_MAX_LENGTH,
    description:
      'Liquid template. Required on step 1; a later step without subject is sent as a reply in the same thread',
  })
  @ValidateIf((_, v) => v !== null && v !== undefined)
  @IsString()
  @MaxLength(SUBJECT_MAX_LENGTH)
  @NoNulCharacters()
  subject: string | null;

  @ApiProperty({ maxLength: TEMPLATE_MAX_LENGTH, description: 'Liquid template' })
  @IsString()
  @Length(1, TEMPLATE_MAX_LENGTH)
  @NoNulCharacters()
  body: string;
}

export class CreateSequenceDto {
  @ApiProperty({ minLength: 1, maxLength: 200 })
  @IsString()
  @Length(1, 200)
  @NoNulCharacters()
  name: string;

  @ApiPropertyOptional({ type: [SequenceStepDto], maxItems: MAX_STEPS })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(MAX_STEPS)
  @ValidateNested({ each: true })
  @Type(() => SequenceStepDto)
  steps?: SequenceStepDto[];
}

export class UpdateSequenceDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200 })
  @IsOptionalNotNull()
  @IsString()
  @Length(1, 200)
  @NoNulCharacters()
  name?: string;

  @ApiPropertyOptional({
    type: [SequenceStepDto],
    maxItems: MAX_STEPS,
    description: 'Replaces all steps; only while the sequence is draft (else 409)',
  })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(MAX_STEPS)
  @ValidateNested({ each: true })
  @Type(() => SequenceStepDto)
  steps?: SequenceStepDto[];

  @ApiPropertyOptional({
    enum: ['archived'],
    description: 'Archive the sequence (from draft or published); publish with POST /sequences/{id}/publish',
  })
  @IsOptionalNotNull()
  @IsIn(['archived'])
  status?: 'archived';
}

export class SequenceStepViewDto {
  @ApiProperty() position: number;
  @ApiProperty() delay_minutes: number;
  @ApiProperty({ type: String, nullable: true }) subject: string | null;
  @ApiProperty() body: string;
}

export class SequenceResponseDto implements SequenceView {
  @ApiProperty() id: number;
  @ApiProperty() name: string;
  @ApiProperty({ enum: ['draft', 'published', 'archived'] }) status: SequenceView['status'];
  @ApiProperty({ type: [SequenceStepViewDto] }) steps: SequenceStepViewDto[];
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) published_at: string | null;
}
