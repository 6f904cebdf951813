import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, IsUrl, MaxLength } from 'class-validator';

export class StartOAuthDto {
  @ApiPropertyOptional({
    maxLength: 2000,
    example: 'https://app.example.com/settings/inboxes',
    description:
      "Where the callback sends the browser when it is done (303), with `inbox_id` or `error` in the query; without it the callback answers a small HTML page. Must be on an origin the operator allows (OAUTH_RETURN_ORIGINS; default the service's own): another origin answers 422",
  })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true, require_tld: false })
  return_url?: string;
}

export class OAuthStartResponseDto {
  @ApiProperty({
    description:
      "The provider's consent page (authorization-code flow with PKCE S256, offline access, mail scopes)",
  })
  authorization_url: string;
  @ApiProperty({ description: 'Signed, single use; sent back to the callback by the provider' })
  state: string;
  @ApiProperty({ format: 'date-time', description: 'The flow must finish by then (10 minutes)' })
  expires_at: string;
}
