import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsInt, Max, Min } from 'class-validator';
import { Check, IfPresent } from '../../../common/http/check.js';
import { MAX_ID } from '../../../common/http/id-params.js';
import { isValidEmail, normalizeEmail, parseTimestamp } from '../../contacts/contact-fields.js';
import { parseStageList, parseVerificationList } from '../../contacts/dto/list-contacts-query.dto.js';
import { CONTACT_STAGES, VERIFICATION_STATUSES } from '../../contacts/entities/contact.entity.js';

export const MAX_VERIFY_IDS = 1000;

const TimestampFilter = (name: string): PropertyDecorator =>
  Check(
    `is_${name}`,
    (v) => parseTimestamp(v) !== undefined,
    `${name} must be an ISO 8601 date or date-time`,
  );

/**
 * `POST /contacts/verify`: the contacts to check again, by id, or (without `contact_ids`) every contact
 * the list filters of `GET /contacts` select (no filter: every contact of the workspace).
 */
export class VerifyContactsDto {
  @ApiPropertyOptional({ type: [Number], minItems: 1, maxItems: MAX_VERIFY_IDS })
  @IfPresent()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_VERIFY_IDS)
  @IsInt({ each: true })
  @Min(1, { each: true })
  @Max(MAX_ID, { each: true })
  contact_ids?: number[];

  @ApiPropertyOptional({ description: `Stage filter; comma list of ${CONTACT_STAGES.join(', ')}` })
  @IfPresent()
  @Check('is_stage_list', (v) => parseStageList(v) !== undefined, 'status must be a comma list of stages')
  status?: string;

  @ApiPropertyOptional({ description: `Verdict filter; comma list of ${VERIFICATION_STATUSES.join(', ')}` })
  @IfPresent()
  @Check(
    'is_verification_list',
    (v) => parseVerificationList(v) !== undefined,
    `verification must be a comma list of ${VERIFICATION_STATUSES.join(', ')}`,
  )
  verification?: string;

  @ApiPropertyOptional({ description: 'Exact address (trimmed, case-insensitive)' })
  @IfPresent()
  @Transform(({ value }: { value: unknown }) => normalizeEmail(value))
  @Check('is_email_filter', isValidEmail, 'email must be a valid email address')
  email?: string;

  @ApiPropertyOptional({ enum: ['true', 'false'] })
  @IfPresent()
  @IsIn(['true', 'false'], { message: 'sendable must be true or false' })
  sendable?: 'true' | 'false';

  @ApiPropertyOptional({ format: 'date-time' })
  @IfPresent()
  @TimestampFilter('created_after')
  created_after?: string;

  @ApiPropertyOptional({ format: 'date-time' })
  @IfPresent()
  @TimestampFilter('created_before')
  created_before?: string;

  @ApiPropertyOptional({ format: 'date-time' })
  @IfPresent()
  @TimestampFilter('updated_after')
  updated_after?: string;
}

export class VerifyQueuedDto {
  @ApiProperty({
    minimum: 0,
    description:
      'Contacts queued for a check in the background (a contact whose verdict a hard bounce set is never checked again, so not queued)',
  })
  queued: number;
}
