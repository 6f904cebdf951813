import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { CreatedAt, UpdatedAt } from '../../../database/columns.js';

@Entity('organizations')
export class Organization {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column({ type: 'text' }) name: string;
  @Column({ type: 'integer', default: 10 }) maxWorkspaces: number;
  @Column({ type: 'integer', default: 100000 }) maxContactsPerWorkspace: number;
  @Column({ type: 'integer', default: 100000 }) importRowCap: number;
  /** Requests per minute for this organization's keys; null = the tier default. */
  @Column({ type: 'integer', nullable: true }) rateLimit: number | null;
  @CreatedAt() createdAt: Date;
  @UpdatedAt() updatedAt: Date;
}
