import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import { DELIVERY_EVENT_TYPES, EVENT_FAMILIES, type EventFamily } from '../../events/event-types.js';
import { ERROR_CLASSES } from '../webhook-http.js';
import type { WebhookEndpointView } from '../webhook.view.js';
import type { WebhookDeliveryView } from '../webhook.view.js';

export const FAMILIES = Object.keys(EVENT_FAMILIES) as EventFamily[];

export class CreateWebhookEndpointDto {
  @ApiProperty({
    description: 'Public https URL; every address it resolves to must be public unicast',
    example: 'https://example.com/hooks/outreach',
    maxLength: 2048,
  })
  @IsString()
  @MaxLength(2048)
  url: string;

  @ApiProperty({ description: 'Event families to receive', enum: FAMILIES, isArray: true, minItems: 1 })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(FAMILIES.length)
  @ArrayUnique()
  @IsIn(FAMILIES, { each: true, message: `each value in events must be one of ${FAMILIES.join(', ')}` })
  events: EventFamily[];

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 500 })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsString()
  @MaxLength(500)
  description?: string | null;
}

export class UpdateWebhookEndpointDto {
  @ApiPropertyOptional({ maxLength: 2048 })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  url?: string;

  @ApiPropertyOptional({ enum: FAMILIES, isArray: true, minItems: 1 })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(FAMILIES.length)
  @ArrayUnique()
  @IsIn(FAMILIES, { each: true, message: `each value in events must be one of ${FAMILIES.join(', ')}` })
  events?: EventFamily[];

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 500 })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsString()
  @MaxLength(500)
  description?: string | null;
}

export class WebhookEndpointResponseDto implements WebhookEndpointView {
  @ApiProperty() id: number;
  @ApiProperty() url: string;
  @ApiProperty({ enum: FAMILIES, isArray: true }) events: string[];
  @ApiProperty({ type: String, nullable: true }) description: string | null;
  @ApiProperty({ enum: ['enabled', 'disabled'] }) status: WebhookEndpointView['status'];
  @ApiProperty({ type: String, nullable: true }) disabled_reason: string | null;
  @ApiProperty() consecutive_failures: number;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class WebhookEndpointWithSecretDto extends WebhookEndpointResponseDto {
  @ApiProperty({ description: 'Signing secret (whsec_…), shown only in this answer' }) secret: string;
}

export class WebhookDeliveryResponseDto implements WebhookDeliveryView {
  @ApiProperty() id: number;
  @ApiProperty({ format: 'uuid' }) event_id: string;
  @ApiProperty({ enum: DELIVERY_EVENT_TYPES }) event: string;
  @ApiProperty({ enum: ['pending', 'succeeded', 'failed'] }) status: WebhookDeliveryView['status'];
  @ApiProperty() attempts: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) last_attempt_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) next_attempt_at: string | null;
  @ApiProperty({ type: Number, nullable: true }) last_status_code: number | null;
  @ApiProperty({ type: String, nullable: true }) last_error: string | null;
  @ApiProperty({
    type: String,
    enum: ERROR_CLASSES,
    nullable: true,
    description: 'What went wrong in the last attempt, null after a success',
  })
  last_error_class: string | null;
  @ApiProperty({ type: Number, nullable: true }) last_duration_ms: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'First 200 characters of the last response' })
  last_response_excerpt: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}
