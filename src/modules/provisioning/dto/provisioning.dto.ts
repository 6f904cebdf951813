import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsObject, IsOptional, IsString, Length, ValidateNested } from 'class-validator';
import { IsStorableText } from '../../../common/http/validation.js';
import { WorkspaceConfigDto } from '../../workspaces/dto/workspace-config.dto.js';
import { WorkspaceConfig } from '../../workspaces/workspace-config.js';
import type { WorkspaceView } from '../../workspaces/workspace.view.js';

export class CreateWorkspaceDto {
  @ApiProperty({ minLength: 1, maxLength: 200 })
  @IsString()
  @Length(1, 200)
  @IsStorableText()
  name: string;

  @ApiPropertyOptional({ type: WorkspaceConfigDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => WorkspaceConfigDto)
  config?: WorkspaceConfigDto;
}

export class SeedWorkspaceDto {
  @ApiProperty({ type: WorkspaceConfigDto })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => WorkspaceConfigDto)
  config: WorkspaceConfigDto;
}

export class WorkspaceConfigViewDto implements WorkspaceConfig {
  @ApiProperty() domain_daily_send_limit: number;
  @ApiProperty() unsubscribe_footer_enabled: boolean;
  @ApiProperty() message_body_retention_days: number;
  @ApiProperty({ enum: ['openai', 'anthropic', 'google', 'mistral', 'none'] })
  ai_provider: WorkspaceConfig['ai_provider'];
  @ApiProperty({ type: String, nullable: true }) ai_model: string | null;
  @ApiProperty({ example: 1000, description: 'AI provider calls per UTC day; 0 never calls' })
  ai_daily_limit: number;
  @ApiProperty({
    type: Number,
    format: 'double',
    example: 5,
    description: 'Percent; 0 = bounce protection off',
  })
  bounce_rate_pause_percent: number;
  @ApiProperty({ example: 3, description: 'Days an away notice without a date holds; 0 = off' })
  out_of_office_hold_days: number;
}

export class WorkspaceResponseDto implements WorkspaceView {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ type: WorkspaceConfigViewDto }) config: WorkspaceConfigViewDto;
  @ApiProperty({ format: 'uuid' }) organization_id: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class MintedKeyDto {
  @ApiProperty() id: number;
  @ApiProperty() name: string;
  @ApiProperty() prefix: string;
  @ApiProperty({ type: [String] }) scopes: string[];
  @ApiProperty({ description: 'The secret, shown once' }) token: string;
}

export class ProvisionedWorkspaceDto {
  @ApiProperty({ type: WorkspaceResponseDto }) workspace: WorkspaceResponseDto;
  @ApiProperty({ type: MintedKeyDto }) api_key: MintedKeyDto;
}

export class SeedResultDto {
  @ApiProperty({ type: WorkspaceResponseDto }) workspace: WorkspaceResponseDto;
}
