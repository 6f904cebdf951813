import { ApiProperty } from '@nestjs/swagger';
import {
  CONTACT_STAGES,
  VERIFICATION_REASONS,
  VERIFICATION_STATUSES,
  type ContactSource,
  type ContactStage,
  type VerificationReason,
  type VerificationStatus,
} from '../entities/contact.entity.js';
import type { ContactView, VerificationView } from '../contact.view.js';

export class ContactVerificationDto implements VerificationView {
  @ApiProperty({
    enum: VERIFICATION_STATUSES,
    description:
      '`pending` until the first check; `invalid` (syntax, no_domain, no_mx, null_mx, mailbox_unknown), ' +
      '`risky` (disposable, role, catch_all, typo), `unknown` (DNS unavailable or an inconclusive probe; ' +
      'checked again later), else `valid`',
  })
  status: VerificationStatus;
  @ApiProperty({ enum: VERIFICATION_REASONS, isArray: true, description: '`free_mail` is information only' })
  reasons: VerificationReason[];
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'With `typo`: the address as it was probably meant (`gmial.com` → `gmail.com`)',
  })
  suggestion: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) checked_at: string | null;
}

export class ContactSuppressionDto {
  @ApiProperty({ enum: ['unsubscribed', 'bounced', 'complained', 'manual'] }) reason: string;
  @ApiProperty({ format: 'date-time', description: 'When the matching suppression entry was created' })
  created_at: string;
}

export class ContactResponseDto implements ContactView {
  @ApiProperty({ minimum: 1 }) id: number;
  @ApiProperty({ description: 'Trimmed and lower-cased; unique in the workspace' }) email: string;
  @ApiProperty({ type: String, nullable: true }) first_name: string | null;
  @ApiProperty({ type: String, nullable: true }) last_name: string | null;
  @ApiProperty({ type: String, nullable: true }) company: string | null;
  @ApiProperty({ type: String, nullable: true }) title: string | null;
  @ApiProperty({ type: String, nullable: true }) phone: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'IANA time zone name' }) timezone: string | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } })
  custom_fields: Record<string, string>;
  @ApiProperty({ enum: CONTACT_STAGES }) stage: ContactStage;
  @ApiProperty({ description: 'False when the address or its domain is on the suppression list' })
  sendable: boolean;
  @ApiProperty({ type: ContactSuppressionDto, nullable: true })
  suppression: ContactSuppressionDto | null;
  @ApiProperty({ enum: ['api', 'import', 'cli', 'referral'] }) source: ContactSource;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The contact whose `wrong_person` reply named this one (`source: referral`)',
  })
  referred_by_contact_id: number | null;
  @ApiProperty({
    type: ContactVerificationDto,
    description: 'The address verdict, checked in the background',
  })
  verification: ContactVerificationDto;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}
