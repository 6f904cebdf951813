import { ApiProperty } from '@nestjs/swagger';
import type { ImportView } from '../import.view.js';

export class ImportRowErrorDto {
  @ApiProperty({ description: '1-based data row (a CSV header is not counted)' }) row: number;
  @ApiProperty({ example: 'email' }) field: string;
  @ApiProperty() message: string;
}

export class ImportResponseDto implements ImportView {
  @ApiProperty() id: number;
  @ApiProperty({ enum: ['queued', 'processing', 'completed', 'failed'] }) status: ImportView['status'];
  @ApiProperty({ enum: ['api', 'cli'], description: 'api for POST /contacts/import' })
  source: ImportView['source'];
  @ApiProperty() update_existing: boolean;
  @ApiProperty() total_rows: number;
  @ApiProperty({ description: 'Rows done so far (the checkpoint)' }) processed_rows: number;
  @ApiProperty() created_count: number;
  @ApiProperty() updated_count: number;
  @ApiProperty({
    description: 'Repeated addresses within the import, and existing contacts when update_existing is false',
  })
  skipped_count: number;
  @ApiProperty() error_count: number;
  @ApiProperty({ type: [ImportRowErrorDto], description: 'The first 100 row errors' })
  errors: ImportRowErrorDto[];
  @ApiProperty({ type: String, nullable: true, example: 'import_cap_exceeded' }) failure_reason:
    string | null;
  @ApiProperty() created_at: string;
  @ApiProperty({ type: String, nullable: true }) started_at: string | null;
  @ApiProperty({ type: String, nullable: true }) finished_at: string | null;
}
