import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
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
/** Extra variants per step (B..E); the step's own subject and body are variant A. */
export const MAX_VARIANTS = 4;
export const VARIANT_LETTERS = ['A', 'B', 'C', 'D', 'E'] as const;

export class StepVariantDto {
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: SUBJECT_MAX_LENGTH,
    example: 'A better time, {{ first_name }}?',
    description:
      'Liquid template. Required on step 1; without it a later step is sent as a reply to the subject sent at step 1',
  })
  @ValidateIf((_, v) => v !== null && v !== undefined)
  @IsString()
  @MaxLength(SUBJECT_MAX_LENGTH)
  @NoNulCharacters()
  subject?: string | null;

  @ApiProperty({
    maxLength: TEMPLATE_MAX_LENGTH,
    example: 'Hi {{ first_name }}, would a short call next week work?',
    description: 'Liquid template',
  })
  @IsString()
  @Length(1, TEMPLATE_MAX_LENGTH)
  @NoNulCharacters()
  body: string;
}

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

  @ApiPropertyOptional({
    type: [StepVariantDto],
    minItems: 1,
    maxItems: MAX_VARIANTS,
    nullable: true,
    example: [
      { subject: 'A better time, {{ first_name }}?', body: 'Hi {{ first_name }}, would a short call work?' },
    ],
    description:
      "A/B variants: 1 to 4 extra `{subject, body}`, sent as variants B..E (the step's own subject and body are A). Each enrollment gets one variant per step, spread evenly: variant (enrollment id + position) mod (variants + 1)",
  })
  @ValidateIf((_, v) => v !== null && v !== undefined)
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_VARIANTS)
  @ValidateNested({ each: true })
  @Type(() => StepVariantDto)
  variants?: StepVariantDto[] | null;
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

export class StepVariantViewDto {
  @ApiProperty({ type: String, nullable: true }) subject: string | null;
  @ApiProperty() body: string;
}

export class SequenceStepViewDto {
  @ApiProperty() position: number;
  @ApiProperty() delay_minutes: number;
  @ApiProperty({ type: String, nullable: true }) subject: string | null;
  @ApiProperty() body: string;
  @ApiProperty({
    type: [StepVariantViewDto],
    description: 'Variants B..E (empty: only the step itself, variant A)',
  })
  variants: StepVariantViewDto[];
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
