import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A staged row of an import (1-based data row number), so any worker can run or resume it. */
@Entity('import_rows')
export class ImportRow {
  @PrimaryColumn({ type: 'bigint' }) importId: number;
  @PrimaryColumn({ type: 'integer' }) rowNumber: number;
  @Column({ type: 'jsonb' }) data: Record<string, unknown>;
}
