import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsOptional } from 'class-validator';
import { Check } from '../../../common/http/check.js';
import { PageQueryDto } from '../../../common/http/pagination.js';
import { isValidEmail, normalizeEmail, parseTimestamp } from '../contact-fields.js';
import {
  CONTACT_STAGES,
  VERIFICATION_STATUSES,
  type ContactStage,
  type VerificationStatus,
} from '../entities/contact.entity.js';

/** `status=new,contacted`: each item a stage, no empty items. */
export function parseStageList(value: unknown): ContactStage[] | undefined {
  if (typeof value !== 'string') return undefined;
  const items = value.split(',').map((s) => s.trim());
  if (!items.every((s) => (CONTACT_STAGES as readonly string[]).includes(s))) return undefined;
  return [...new Set(items)] as ContactStage[];
}

/** `verification=invalid,risky`: each item a verdict status. */
export function parseVerificationList(value: unknown): VerificationStatus[] | undefined {
  if (typeof value !== 'string') return undefined;
  const items = value.split(',').map((s) => s.trim());
  if (!items.every((s) => (VERIFICATION_STATUSES as readonly string[]).includes(s))) return undefined;
  return [...new Set(items)] as VerificationStatus[];
}

const TIMESTAMP_HELP = 'an ISO 8601 date (YYYY-MM-DD, midnight UTC) or date-time with Z or an offset';

const TimestampFilter = (name: string): PropertyDecorator =>
  Check(`is_${name}`, (v) => parseTimestamp(v) !== undefined, `${name} must be ${TIMESTAMP_HELP}`);

/**
 * Whitelisted filters of `GET /contacts` (spec rule 1). Anything else in the query string is ignored;
 * a bad value of a listed filter answers 422 naming it.
 */
export class ListContactsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({
    description: `Stage filter (the contact's state field); comma list of ${CONTACT_STAGES.join(', ')}`,
    example: 'new,contacted',
  })
  @IsOptional()
  @Check(
    'is_stage_list',
    (v) => parseStageList(v) !== undefined,
    `status must be a comma list of ${CONTACT_STAGES.join(', ')}`,
  )
  status?: string;

  @ApiPropertyOptional({ description: 'Exact address (trimmed, case-insensitive)' })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => normalizeEmail(value))
  @Check('is_email_filter', isValidEmail, 'email must be a valid email address')
  email?: string;

  @ApiPropertyOptional({
    description: `Address verdict filter; comma list of ${VERIFICATION_STATUSES.join(', ')}`,
    example: 'invalid',
  })
  @IsOptional()
  @Check(
    'is_verification_list',
    (v) => parseVerificationList(v) !== undefined,
    `verification must be a comma list of ${VERIFICATION_STATUSES.join(', ')}`,
  )
  verification?: string;

  @ApiPropertyOptional({ enum: ['true', 'false'] })
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'sendable must be true or false' })
  sendable?: 'true' | 'false';

  @ApiPropertyOptional({ format: 'date-time', description: `Created strictly after; ${TIMESTAMP_HELP}` })
  @IsOptional()
  @TimestampFilter('created_after')
  created_after?: string;

  @ApiPropertyOptional({ format: 'date-time', description: `Created strictly before; ${TIMESTAMP_HELP}` })
  @IsOptional()
  @TimestampFilter('created_before')
  created_before?: string;

  @ApiPropertyOptional({ format: 'date-time', description: `Updated strictly after; ${TIMESTAMP_HELP}` })
  @IsOptional()
  @TimestampFilter('updated_after')
  updated_after?: string;
}
