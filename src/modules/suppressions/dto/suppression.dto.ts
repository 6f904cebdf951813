import { ApiSchemaRules, exactlyOneOf } from '../../../common/http/schema-rules.js';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsOptional, isFQDN, ValidateIf } from 'class-validator';
import { Check } from '../../../common/http/check.js';
import { PageQueryDto } from '../../../common/http/pagination.js';
import { EMAIL_MAX_LENGTH, isValidEmail, normalizeEmail } from '../../../common/email/address.js';
import { SUPPRESSION_REASONS, type SuppressionReason } from '../entities/suppression.entity.js';
import type { SuppressionView } from '../suppression.view.js';

/** Trimmed, lower-cased, without a trailing dot. */
export const normalizeDomain = <T>(value: T): T | string =>
  typeof value === 'string' ? value.trim().toLowerCase().replace(/\.$/, '') : value;

export const isValidDomain = (value: unknown): value is string =>
  typeof value === 'string' &&
  value.length <= 253 &&
  isFQDN(value, { require_tld: true, allow_underscores: false, allow_trailing_dot: false });

/** Exactly one of `email` or `domain` (SuppressionsService answers 422 otherwise). */
@ApiSchemaRules({ ...exactlyOneOf('email', 'domain'), example: { email: 'ada@example.com' } })
export class CreateSuppressionDto {
  @ApiPropertyOptional({ maxLength: EMAIL_MAX_LENGTH, description: 'An address (trimmed, lower-cased)' })
  @ValidateIf((_, v) => v !== undefined)
  @Transform(({ value }: { value: unknown }) => normalizeEmail(value))
  @Check('is_suppression_email', isValidEmail, 'email must be a valid email address')
  email?: string;

  @ApiPropertyOptional({
    maxLength: 253,
    example: 'example.com',
    description: 'A whole domain: every address whose domain equals it exactly (not its subdomains)',
  })
  @ValidateIf((_, v) => v !== undefined)
  @Transform(({ value }: { value: unknown }) => normalizeDomain(value))
  @Check('is_suppression_domain', isValidDomain, 'domain must be a domain name such as example.com')
  domain?: string;
}

export class ListSuppressionsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: SUPPRESSION_REASONS })
  @IsOptional()
  @IsIn(SUPPRESSION_REASONS, { message: `reason must be one of ${SUPPRESSION_REASONS.join(', ')}` })
  reason?: SuppressionReason;

  @ApiPropertyOptional({ description: 'Exact address entry' })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => normalizeEmail(value))
  @Check('is_email_filter', isValidEmail, 'email must be a valid email address')
  email?: string;

  @ApiPropertyOptional({ description: 'Exact domain entry' })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => normalizeDomain(value))
  @Check('is_domain_filter', isValidDomain, 'domain must be a domain name such as example.com')
  domain?: string;
}

export class SuppressionResponseDto implements SuppressionView {
  @ApiProperty({ minimum: 1 }) id: number;
  @ApiProperty({ type: String, nullable: true }) email: string | null;
  @ApiProperty({ type: String, nullable: true }) domain: string | null;
  @ApiProperty({ enum: SUPPRESSION_REASONS, description: 'API-added entries are manual' })
  reason: SuppressionReason;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}
