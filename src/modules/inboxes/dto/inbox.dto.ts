import { ApiProperty } from '@nestjs/swagger';

/** Credential-free inbox metadata: never a host, user name, password, token or secret. */
export class InboxResponseDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() email: string;
  @ApiProperty({ type: String, nullable: true }) display_name: string | null;
  @ApiProperty({ enum: ['smtp'] }) provider: string;
  @ApiProperty({ enum: ['active', 'paused', 'error'] }) status: string;
  @ApiProperty() daily_limit: number;
  @ApiProperty({ description: 'Sent during the current UTC day' }) sent_today: number;
  @ApiProperty() domain: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) last_error_at: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}
