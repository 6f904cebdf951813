/** Column helpers so every table stores timestamps the same way (timestamptz(3)). */
import { Column, CreateDateColumn, UpdateDateColumn, type ColumnOptions } from 'typeorm';

export const CreatedAt = (): PropertyDecorator =>
  CreateDateColumn({ type: 'timestamptz', precision: 3, default: () => 'now()' });
export const UpdatedAt = (): PropertyDecorator =>
  UpdateDateColumn({ type: 'timestamptz', precision: 3, default: () => 'now()' });
export const Timestamp = (options: ColumnOptions = {}): PropertyDecorator =>
  Column({ type: 'timestamptz', precision: 3, nullable: true, ...options });
