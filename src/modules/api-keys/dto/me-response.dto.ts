import { ApiProperty } from '@nestjs/swagger';

export class RateLimitDto {
  @ApiProperty({ description: 'Requests allowed per window' }) limit: number;
  @ApiProperty({ example: 60 }) window_seconds: number;
}

export class MeResponseDto {
  @ApiProperty({ enum: ['workspace', 'provisioning'] }) tier: string;
  @ApiProperty() name: string;
  @ApiProperty({ description: 'Display prefix of the key (never the secret)' }) prefix: string;
  @ApiProperty({ type: [String] }) scopes: string[];
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) workspace_id: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) organization_id: string | null;
  @ApiProperty({ type: RateLimitDto }) rate_limit: RateLimitDto;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) expires_at: string | null;
  @ApiProperty({ type: [String] }) allowed_ips: string[];
}
