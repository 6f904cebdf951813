import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Length, Matches } from 'class-validator';
import { NoNulCharacters } from '../../../sequences/dto/text-rules.js';

export const REPLY_BODY_MAX_LENGTH = 100_000;

export class ManualReplyDto {
  @ApiProperty({
    minLength: 1,
    maxLength: REPLY_BODY_MAX_LENGTH,
    description: 'Plain text, sent as written (not a template; no unsubscribe footer is added)',
    example: 'Hi Pat,\n\nThursday at 10:00 works for me. I will send an invitation.\n\nSam',
  })
  @IsString()
  @Length(1, REPLY_BODY_MAX_LENGTH)
  @Matches(/\S/, { message: 'body must not be blank' })
  @NoNulCharacters()
  body: string;

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 998,
    description: "Default: `Re: ` + the thread's subject (line breaks become spaces)",
    example: 'Re: Quick question about Acme',
  })
  @IsOptional()
  @IsString()
  @Length(1, 998)
  @Matches(/\S/, { message: 'subject must not be blank' })
  @NoNulCharacters()
  subject?: string;
}
