import { BOUNCE_REASONS } from '../../mail-reading/types.js';
import type { BounceView } from '../../mail-reading/bounce.view.js';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsUUID } from 'class-validator';
import { PageQueryDto } from '../../../common/http/pagination.js';
import { QueryIdFilter } from '../../../common/http/id-params.js';
import type { ThreadView } from '../thread.view.js';
import type { MessageView } from '../message.view.js';
import { REPLY_CATEGORIES } from '../reply-category.js';

const CATEGORY_DESCRIPTION =
  '`interested`, `not_interested`, `not_now`, `wrong_person`, `unsubscribe_request` (suppresses the address and stops its enrollments) or `other`';

export class ListThreadsQueryDto extends PageQueryDto {
  @QueryIdFilter('contact_id')
  contact_id?: number;

  @QueryIdFilter('campaign_id')
  campaign_id?: number;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID('all', { message: 'inbox_id must be a UUID' })
  inbox_id?: string;

  @ApiPropertyOptional({
    enum: ['true', 'false'],
    description:
      '`true`: only threads in which the contact replied (auto-replies and bounces do not count); `false`: only threads without a reply',
  })
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'has_reply must be true or false' })
  has_reply?: 'true' | 'false';

  @ApiPropertyOptional({
    enum: REPLY_CATEGORIES,
    description: `Only threads whose latest categorised reply has this category: ${CATEGORY_DESCRIPTION}`,
  })
  @IsOptional()
  @IsIn(REPLY_CATEGORIES, { message: `category must be one of ${REPLY_CATEGORIES.join(', ')}` })
  category?: (typeof REPLY_CATEGORIES)[number];
}

export class ThreadResponseDto implements ThreadView {
  @ApiProperty() id: number;
  @ApiProperty({ format: 'uuid' }) inbox_id: string;
  @ApiProperty() contact_id: number;
  @ApiProperty({ type: Number, nullable: true }) enrollment_id: number | null;
  @ApiProperty({ type: Number, nullable: true }) campaign_id: number | null;
  @ApiProperty() subject: string;
  @ApiProperty() message_count: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) last_message_at: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    enum: REPLY_CATEGORIES,
    example: 'interested',
    description: `The category of the thread's latest categorised reply, null before one: ${CATEGORY_DESCRIPTION}. Decided shortly after the reply is recorded; corrected with \`PATCH /threads/{id}\``,
  })
  category: ThreadView['category'];
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description:
      "A `not_now` reply's day to come back, at the campaign's start time in the contact's time zone",
  })
  follow_up_at: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The address a `wrong_person` reply pointed to' })
  referral_email: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class BounceResponseDto implements BounceView {
  @ApiProperty({
    enum: BOUNCE_REASONS,
    example: 'user_unknown',
    description:
      "Why delivery failed, in a closed set (sisimai's taxonomy): `user_unknown`, `host_unknown`, `has_moved` and `not_accept` are hard (the address cannot receive mail); recipient-side soft reasons (`mailbox_full`, `suspended`, `exceed_limit`, `system_full`, `expired`) suppress after three in 30 days; sender-side reasons (`blocked`, `spam_detected`, `policy_violation`, `security_error`, `auth_failure`, `bad_reputation`, `require_ptr`, `rejected`, `filtered`, `content_error`, `no_relaying`, `speeding`) are recorded on the inbox, never against the contact",
  })
  reason: BounceView['reason'];
  @ApiProperty({
    description: 'True only for the address-level reasons: the address is suppressed `bounced`',
  })
  hard: boolean;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '5.1.1',
    description: 'Enhanced status code (RFC 3463)',
  })
  status: string | null;
  @ApiProperty({ type: 'integer', nullable: true, example: 550, description: 'SMTP reply code' })
  smtp_code: number | null;
  @ApiProperty({
    type: String,
    nullable: true,
    maxLength: 1000,
    description: "The receiving server's diagnostic text, at most 1,000 characters",
  })
  diagnostic: string | null;
}

export class MessageResponseDto implements MessageView {
  @ApiProperty() id: number;
  @ApiProperty() thread_id: number;
  @ApiProperty({ enum: ['outbound', 'inbound'] }) direction: MessageView['direction'];
  @ApiProperty({
    enum: ['email', 'manual', 'reply', 'auto_reply', 'bounce', 'complaint'],
    description:
      'Outbound: `email` (a sequence step) or `manual` (sent with `POST /threads/{id}/messages`). Inbound: `reply`, `auto_reply`, `bounce` (delivery-status report) or `complaint` (RFC 5965 feedback report)',
  })
  kind: MessageView['kind'];
  @ApiProperty() from: string;
  @ApiProperty() to: string;
  @ApiProperty({ type: String, nullable: true }) subject: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Null once purged by the retention job' })
  body: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) body_purged_at: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'RFC 5322 Message-ID, with angle brackets' })
  message_id: string | null;
  @ApiProperty({ type: String, nullable: true }) in_reply_to: string | null;
  @ApiProperty({
    enum: ['sending', 'sent', 'bounced', 'failed', 'received'],
    description:
      '`sending`: recorded for sending, outcome not confirmed yet. `bounced`: sent, then a delivery-failure report about it was received (see `bounce`). `failed`: refused by the server when sent (see `error` and `bounce`) or outcome unknown (see `error`)',
  })
  status: MessageView['status'];
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) sent_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) received_at: string | null;
  @ApiProperty({ type: Number, nullable: true, description: 'Sequence step of an outbound message' })
  step_position: number | null;
  @ApiProperty({
    type: String,
    nullable: true,
    enum: ['A', 'B', 'C', 'D', 'E'],
    example: 'B',
    description:
      "The step variant sent (A: the step's own subject and body, B..E: its `variants` in order); null for inbound mail",
  })
  variant: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'Why the message failed: the SMTP reply of a hard bounce, or a text starting `outcome unknown` when the connection was lost after the message was handed over (never resent; the enrollment is paused for review)',
  })
  error: string | null;
  @ApiProperty({
    type: BounceResponseDto,
    nullable: true,
    description:
      'The bounce verdict (reason, hard, status, smtp_code, diagnostic): on a sent message that bounced, and on the delivery-failure report (kind `bounce`) itself; null otherwise',
  })
  bounce: BounceResponseDto | null;
  @ApiProperty({
    type: String,
    nullable: true,
    enum: REPLY_CATEGORIES,
    example: 'interested',
    description: `A reply's category: ${CATEGORY_DESCRIPTION}; null until decided (shortly after the reply is recorded) and on every other kind of message`,
  })
  category: MessageView['category'];
  @ApiProperty({
    type: String,
    nullable: true,
    enum: ['rules', 'ai', 'manual'],
    example: 'rules',
    description:
      "Who decided `category`: `rules` (the built-in classifier, also the fallback when the workspace's AI provider fails or its `ai_daily_limit` is reached), `ai` (the workspace's AI provider) or `manual` (`PATCH /threads/{id}`)",
  })
  category_source: MessageView['category_source'];
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class UpdateThreadDto {
  @ApiProperty({
    enum: REPLY_CATEGORIES,
    example: 'not_now',
    description: `The corrected category of the thread's latest reply: ${CATEGORY_DESCRIPTION}`,
  })
  @IsIn(REPLY_CATEGORIES, { message: `category must be one of ${REPLY_CATEGORIES.join(', ')}` })
  category: (typeof REPLY_CATEGORIES)[number];
}
