import { ApiProperty } from '@nestjs/swagger';
import type { InboxView } from '../inbox.view.js';

/** Credential-free inbox metadata: never a host, user name, password, token or secret. */
export class InboxResponseDto implements InboxView {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() email: string;
  @ApiProperty({ type: String, nullable: true }) display_name: string | null;
  @ApiProperty({ enum: ['smtp'] }) provider: InboxView['provider'];
  @ApiProperty({ enum: ['active', 'paused', 'error'] }) status: InboxView['status'];
  @ApiProperty() daily_limit: number;
  @ApiProperty({ description: 'Sent during the current UTC day' }) sent_today: number;
  @ApiProperty() domain: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) last_error_at: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}
