import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MAX_ID } from '../../../common/http/id-params.js';
import { Transform } from 'class-transformer';
import { ArrayMinSize, IsArray, IsIn, IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { PageQueryDto } from '../../../common/http/pagination.js';
import { QueryIdFilter } from '../../../common/http/id-params.js';
import { NoNulCharacters } from '../../sequences/dto/text-rules.js';
import { ENROLLMENT_STATUSES, STOP_REASONS, type EnrollmentStatus } from '../enrollment-state.js';
import type { EnrollmentView } from '../enrollment.view.js';

export class CreateEnrollmentDto {
  @ApiProperty({ minimum: 1, description: 'A sendable contact of this workspace' })
  @IsInt()
  @Min(1)
  @Max(MAX_ID)
  contact_id: number;
}

export class StopEnrollmentDto {
  @ApiProperty({ minLength: 1, maxLength: 500, description: 'Why; kept as stop_note' })
  @IsString()
  @Length(1, 500)
  @NoNulCharacters()
  reason: string;
}

export class ListEnrollmentsQueryDto extends PageQueryDto {
  @QueryIdFilter('campaign_id')
  campaign_id?: number;

  @QueryIdFilter('contact_id')
  contact_id?: number;

  @QueryIdFilter('subsequence_id')
  subsequence_id?: number;

  @ApiPropertyOptional({
    type: String,
    description: `One status or a comma list of ${ENROLLMENT_STATUSES.join(', ')}`,
    example: 'active,paused',
  })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' ? value.split(',').map((s) => s.trim()) : value,
  )
  @IsArray({ message: 'status must be a comma list of enrollment statuses' })
  @ArrayMinSize(1, { message: 'status must be a comma list of enrollment statuses' })
  @IsIn(ENROLLMENT_STATUSES, {
    each: true,
    message: `status must be among ${ENROLLMENT_STATUSES.join(', ')}`,
  })
  status?: EnrollmentStatus[];
}

export class EnrollmentResponseDto implements EnrollmentView {
  @ApiProperty() id: number;
  @ApiProperty() campaign_id: number;
  @ApiProperty() contact_id: number;
  @ApiProperty({ enum: ENROLLMENT_STATUSES }) status: EnrollmentView['status'];
  @ApiProperty({ description: 'Steps already sent' }) current_step: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) next_step_at: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'Null until the first send' })
  inbox_id: string | null;
  @ApiProperty({ type: String, enum: STOP_REASONS, nullable: true })
  stop_reason: EnrollmentView['stop_reason'];
  @ApiProperty({ type: String, nullable: true }) stop_note: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) completed_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) stopped_at: string | null;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The subsequence it runs; null: the campaign’s own sequence',
  })
  subsequence_id: number | null;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The enrollment whose trigger started this one',
  })
  parent_enrollment_id: number | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'Out of office: no step before this',
  })
  held_until: string | null;
  @ApiProperty({ type: String, enum: ['out_of_office'], nullable: true }) held_reason: string | null;
}
