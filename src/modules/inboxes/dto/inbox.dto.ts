import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Max,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { IsStorableText } from '../../../common/http/validation.js';
import { INBOX_PROVIDERS, INBOX_STATUSES, INBOX_TRANSPORTS } from '../entities/inbox.entity.js';
import type { DomainHealthView, HealthCheck } from '../health/domain-health.js';
import type { InboxRampUpView, InboxView } from '../inbox.view.js';

export const MAX_DAILY_LIMIT = 100000;

export class InboxRampUpResponseDto implements InboxRampUpView {
  @ApiProperty({ description: 'Sends allowed on the first day of the ramp' }) start: number;
  @ApiProperty({ description: 'Added to the limit for each whole day since the ramp began' })
  increase_per_day: number;
  @ApiProperty({ format: 'date-time', description: 'When the ramp began (set when it is set or changed)' })
  started_at: string;
}

/** Credential-free inbox metadata: never a host, user name, password, token or secret. */
export class InboxResponseDto implements InboxView {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() email: string;
  @ApiProperty({ type: String, nullable: true }) display_name: string | null;
  @ApiProperty({ enum: INBOX_PROVIDERS, description: '`smtp`: any server; `google`, `microsoft`: OAuth 2.0' })
  provider: InboxView['provider'];
  @ApiProperty({
    enum: ['password', 'oauth2'],
    description: 'How the inbox signs in to SMTP and IMAP: a password, or OAuth 2.0 (SASL XOAUTH2)',
  })
  auth: InboxView['auth'];
  @ApiProperty({
    enum: INBOX_TRANSPORTS,
    description:
      "How the inbox sends and reads: `smtp` (SMTP and IMAP), or `api`: an OAuth inbox through its provider's own API (Gmail API, Microsoft Graph)",
  })
  transport: InboxView['transport'];
  @ApiProperty({
    enum: INBOX_STATUSES,
    description:
      '`reauth_required`: the provider refused the OAuth grant; nothing is sent from the inbox until it is connected again',
  })
  status: InboxView['status'];
  @ApiProperty() daily_limit: number;
  @ApiProperty({ type: InboxRampUpResponseDto, nullable: true }) ramp_up: InboxRampUpView | null;
  @ApiProperty({
    description:
      "Today's limit: daily_limit, or min(daily_limit, start + increase_per_day × whole days since the ramp began)",
  })
  effective_daily_limit: number;
  @ApiProperty({ description: 'Sent during the current UTC day' }) sent_today: number;
  @ApiProperty() domain: string;
  @ApiProperty({ type: String, nullable: true, description: 'The last sending or sign-in failure, in words' })
  last_error: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) last_error_at: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class InboxRampUpDto {
  @ApiProperty({ minimum: 1, maximum: MAX_DAILY_LIMIT, example: 5 })
  @IsInt()
  @Min(1)
  @Max(MAX_DAILY_LIMIT)
  start: number;

  @ApiProperty({ minimum: 0, maximum: MAX_DAILY_LIMIT, example: 5 })
  @IsInt()
  @Min(0)
  @Max(MAX_DAILY_LIMIT)
  increase_per_day: number;
}

export const SETTABLE_INBOX_STATUSES = ['active', 'paused'] as const;

export class UpdateInboxDto {
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 200 })
  @ValidateIf((_, v) => v !== null && v !== undefined)
  @IsString()
  @Length(1, 200)
  @IsStorableText()
  display_name?: string | null;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_DAILY_LIMIT })
  @ValidateIf((_, v) => v !== undefined)
  @IsInt()
  @Min(1)
  @Max(MAX_DAILY_LIMIT)
  daily_limit?: number;

  @ApiPropertyOptional({
    enum: SETTABLE_INBOX_STATUSES,
    description:
      'Pause or resume sending from the inbox. An inbox in `reauth_required` is made active by connecting it again (409 here)',
  })
  @ValidateIf((_, v) => v !== undefined)
  @IsIn(SETTABLE_INBOX_STATUSES)
  status?: (typeof SETTABLE_INBOX_STATUSES)[number];

  @ApiPropertyOptional({
    enum: INBOX_TRANSPORTS,
    description:
      "`api` sends and reads through the provider's own API (Gmail API, Microsoft Graph); only for OAuth inboxes (`auth: oauth2`), else 422. `smtp`: SMTP and IMAP",
  })
  @ValidateIf((_, v) => v !== undefined)
  @IsIn(INBOX_TRANSPORTS)
  transport?: (typeof INBOX_TRANSPORTS)[number];

  @ApiPropertyOptional({
    type: InboxRampUpDto,
    nullable: true,
    description:
      'Ramp the daily volume up from `start`, adding `increase_per_day` each whole day, never above daily_limit; null removes it. Setting a different ramp restarts it today',
  })
  @ValidateIf((_, v) => v !== null && v !== undefined)
  @IsObject()
  @ValidateNested()
  @Type(() => InboxRampUpDto)
  ramp_up?: InboxRampUpDto | null;
}

export class HealthQueryDto {
  @ApiPropertyOptional({
    enum: ['true', 'false'],
    description:
      'true: read DNS again instead of the cached answer (at most once a minute per inbox: within a minute of the last check, that check is answered)',
  })
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'refresh must be true or false' })
  refresh?: 'true' | 'false';
}

export class HealthCheckDto implements HealthCheck {
  @ApiProperty({ enum: ['mx', 'spf', 'dkim', 'dmarc', 'ptr'] }) name: HealthCheck['name'];
  @ApiProperty() ok: boolean;
  @ApiProperty({
    example: false,
    description:
      "RFC 7208's temperror: DNS did not answer (in time), so the check was not evaluated; try again later (`ok` is false)",
  })
  temperror: boolean;
  @ApiProperty({ description: 'What was found, or what is missing and why it matters' }) detail: string;
}

export class InboxHealthResponseDto implements DomainHealthView {
  @ApiProperty({ example: 'acme.com' }) domain: string;
  @ApiProperty({ format: 'date-time' }) checked_at: string;
  @ApiProperty({
    enum: ['pass', 'warn', 'fail'],
    description:
      '`fail`: SPF, DKIM or DMARC is missing or wrong (bulk-sender rules of Gmail, Yahoo, Microsoft); `warn`: an advised record (MX, PTR) is missing, or a check is `temperror` (DNS did not answer)',
  })
  verdict: DomainHealthView['verdict'];
  @ApiProperty({ type: [HealthCheckDto] }) checks: HealthCheck[];
}
