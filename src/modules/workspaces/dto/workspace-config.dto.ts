import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  ValidateIf,
} from 'class-validator';
import { IfPresent } from '../../../common/http/check.js';
import { IsStorableText } from '../../../common/http/validation.js';
import { AI_MODEL_PATTERN } from '../../../config/ai-models.js';
import { AI_PROVIDERS } from '../workspace-config.js';

/** Workspace config. Unknown keys are rejected by the global pipe as `config.<key>`. */
export class WorkspaceConfigDto {
  @ApiPropertyOptional({
    minimum: 1,
    maximum: 100000,
    default: 500,
    description: 'Sends per UTC day from one sending domain',
  })
  @IfPresent()
  @IsInt()
  @Min(1)
  @Max(100000)
  domain_daily_send_limit?: number;

  @ApiPropertyOptional({ default: true })
  @IfPresent()
  @IsBoolean()
  unsubscribe_footer_enabled?: boolean;

  @ApiPropertyOptional({ minimum: 1, maximum: 3650, default: 365 })
  @IfPresent()
  @IsInt()
  @Min(1)
  @Max(3650)
  message_body_retention_days?: number;

  @ApiPropertyOptional({ enum: AI_PROVIDERS, default: 'none' })
  @IfPresent()
  @IsIn(AI_PROVIDERS)
  ai_provider?: (typeof AI_PROVIDERS)[number];

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    minLength: 1,
    maxLength: 100,
    pattern: AI_MODEL_PATTERN.source,
    description:
      'The model of `ai_provider` (e.g. `gpt-4o-mini`). The operator may restrict the models per provider (`AI_MODELS`): another model answers 422',
  })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsString()
  @Length(1, 100)
  @IsStorableText()
  @Matches(AI_MODEL_PATTERN, {
    message: 'ai_model must be letters, digits, ".", "_", ":" or "-", starting with a letter or digit',
  })
  ai_model?: string | null;

  @ApiPropertyOptional({
    minimum: 0,
    maximum: 1000000,
    default: 1000,
    description:
      "Calls to the workspace's AI provider per UTC day to categorise replies; once reached, the built-in rules decide the day's remaining replies. 0 never calls. The operator's `AI_DAILY_LIMIT_MAX` (default 10,000) is the highest value accepted: above it, 422",
  })
  @IfPresent()
  @IsInt()
  @Min(0)
  @Max(1000000)
  ai_daily_limit?: number;

  @ApiPropertyOptional({
    type: Number,
    format: 'double',
    minimum: 0,
    maximum: 100,
    default: 5,
    example: 5,
    description:
      'Bounce protection: a campaign whose hard bounces among its last 100 sends (counted once it has 20) exceed this percentage is paused with `paused_reason: "bounce_rate"`; 0 turns it off',
  })
  @IfPresent()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(100)
  bounce_rate_pause_percent?: number;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: 60,
    default: 3,
    description:
      'Out of office: days an away auto-reply without a return date holds its enrollment’s next step; 0 turns it off',
  })
  @IfPresent()
  @IsInt()
  @Min(0)
  @Max(60)
  out_of_office_hold_days?: number;
}
