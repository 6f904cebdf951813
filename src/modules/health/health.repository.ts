import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { pgPool } from '../../database/pg-pool.js';

/** The readiness probe's round trip to PostgreSQL (no tenant data: it spans workspaces by nature). */
@Injectable()
export class HealthRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async pingAcrossWorkspaces(): Promise<void> {
    await pgPool(this.db).query('SELECT 1');
  }
}
