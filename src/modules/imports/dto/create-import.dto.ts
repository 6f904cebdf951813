import { ApiSchemaRules, exactlyOneOf } from '../../../common/http/schema-rules.js';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsBoolean, IsOptional, IsString } from 'class-validator';

export class ImportContactDto {
  @ApiPropertyOptional({
    example: 'ada@example.com',
    description:
      'Needed for the row to be imported; trimmed and lower-cased. A row without a valid email, or with a field not ' +
      'listed here, is accepted with the request (202) but not imported: it is counted in error_count and listed in ' +
      'errors with its row number',
  })
  email?: string;
  @ApiPropertyOptional({ type: String, nullable: true }) first_name?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) last_name?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) company?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) title?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) phone?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'IANA time zone name' })
  timezone?: string | null;
  @ApiPropertyOptional({
    enum: ['new', 'contacted', 'replied', 'interested', 'not_interested', 'customer'],
  })
  stage?: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    description: 'At most 50 keys; merged key by key into an existing contact',
  })
  custom_fields?: Record<string, string>;
}

/**
 * Exactly one of `contacts` or `csv`. Rows are validated one by one when staged: an invalid row is
 * counted and listed on the import, it never refuses the request.
 */
/** Exactly one of `contacts` or `csv` (ImportsService answers 422 otherwise). */
@ApiSchemaRules({
  ...exactlyOneOf('contacts', 'csv'),
  example: { contacts: [{ email: 'ada@example.com', first_name: 'Ada', custom_fields: { plan: 'pro' } }] },
})
export class CreateImportDto {
  @ApiPropertyOptional({
    type: [ImportContactDto],
    description: 'Contacts as JSON objects (fields of the contact resource)',
  })
  @IsOptional()
  @IsArray()
  contacts?: unknown[];

  @ApiPropertyOptional({
    description:
      'CSV text: a header row naming contact fields (email required); other columns go to custom_fields',
    example: 'email,first_name,plan\nada@example.com,Ada,pro\n',
  })
  @IsOptional()
  @IsString()
  csv?: string;

  @ApiPropertyOptional({
    default: true,
    description: 'Merge rows into existing contacts (true) or skip existing contacts (false)',
  })
  @IsOptional()
  @IsBoolean()
  update_existing?: boolean;
}
