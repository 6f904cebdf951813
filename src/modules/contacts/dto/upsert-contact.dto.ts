import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsOptional, IsString, MaxLength, ValidateIf } from 'class-validator';
import { Check } from '../../../common/http/check.js';
import {
  CUSTOM_FIELDS_MAX_KEYS,
  EMAIL_MAX_LENGTH,
  HasNoNul,
  IsCustomFields,
  IsIanaTimezone,
  isValidEmail,
  normalizeEmail,
  PHONE_MAX_LENGTH,
  TEXT_FIELD_MAX_LENGTH,
} from '../contact-fields.js';
import { CONTACT_STAGES, type ContactStage } from '../entities/contact.entity.js';

const IsEmailAddress = (): PropertyDecorator =>
  Check('isEmailAddress', isValidEmail, (property) => `${property} must be a valid email address`);

/** An optional, nullable text field. */
const Text = (maxLength: number, description?: string): PropertyDecorator =>
  applyDecorators(
    ApiPropertyOptional({ type: String, nullable: true, maxLength, description }),
    IsOptional(),
    IsString(),
    MaxLength(maxLength),
    HasNoNul(),
  );

/** Fields a client may set on a contact. A field that is absent is kept on merge; `null` clears it. */
export class ContactFieldsDto {
  @Text(TEXT_FIELD_MAX_LENGTH) last_name?: string | null;
  @Text(TEXT_FIELD_MAX_LENGTH) company?: string | null;
  @Text(TEXT_FIELD_MAX_LENGTH, 'Job title') title?: string | null;
  @Text(PHONE_MAX_LENGTH) phone?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'Europe/Berlin',
    description: 'IANA time zone name',
  })
  @IsOptional()
  @IsIanaTimezone()
  timezone?: string | null;

  @ApiPropertyOptional({ enum: CONTACT_STAGES, description: 'CRM lifecycle stage (default new)' })
  @ValidateIf((_, v) => v !== undefined)
  @IsIn(CONTACT_STAGES, { message: `stage must be one of ${CONTACT_STAGES.join(', ')}` })
  stage?: ContactStage;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string', nullable: true },
    maxProperties: CUSTOM_FIELDS_MAX_KEYS,
    description: `Merged key by key into the stored fields; a null value removes that key. At most ${CUSTOM_FIELDS_MAX_KEYS} keys of string values.`,
  })
  @ValidateIf((_, v) => v !== undefined)
  @IsCustomFields()
  custom_fields?: Record<string, string | null>;
}

/** `POST /contacts`: an upsert keyed by the normalised email. The spec requires `first_name`. */
export class CreateContactDto extends ContactFieldsDto {
  @ApiProperty({ type: String, maxLength: TEXT_FIELD_MAX_LENGTH })
  @IsString()
  @MaxLength(TEXT_FIELD_MAX_LENGTH)
  @HasNoNul()
  first_name: string;

  @ApiProperty({ maxLength: EMAIL_MAX_LENGTH, description: 'Trimmed and lower-cased; the identity' })
  @Transform(({ value }: { value: unknown }) => normalizeEmail(value))
  @IsEmailAddress()
  email: string;
}

/** `PATCH /contacts/{id}`: merges; `email`, if sent, must equal the stored one. */
export class UpdateContactDto extends ContactFieldsDto {
  @Text(TEXT_FIELD_MAX_LENGTH) first_name?: string | null;

  @ApiPropertyOptional({
    maxLength: EMAIL_MAX_LENGTH,
    description: 'Immutable; accepted only when equal to the stored address',
  })
  @Transform(({ value }: { value: unknown }) => normalizeEmail(value))
  @ValidateIf((_, v) => v !== undefined)
  @IsEmailAddress()
  email?: string;
}

/** One row of a bulk upsert (imports): like POST, but `first_name` may be absent (a CSV may lack it). */
export class ContactRowDto extends ContactFieldsDto {
  @ApiProperty({ maxLength: EMAIL_MAX_LENGTH })
  @Transform(({ value }: { value: unknown }) => normalizeEmail(value))
  @IsEmailAddress()
  email: string;

  @Text(TEXT_FIELD_MAX_LENGTH) first_name?: string | null;
}
