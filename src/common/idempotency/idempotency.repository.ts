/**
 * Idempotency records, scoped by `tenant` (`ws:<workspace id>` or `org:<organization id>`: a key's
 * records belong to the workspace or organization of the credential that made them).
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { rowsOf } from '../../database/query-rows.js';

export interface IdempotencyRow {
  fingerprint: string;
  state: string;
  response_status: number | null;
  response_sealed: string | null;
}

@Injectable()
export class IdempotencyRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Inserts the claim with a lease; a record whose time is up (a finished one after its TTL, a
   * `processing` one whose lease ran out: its request died) is taken over in the same statement.
   * Returns the claim's identity (its `created_at`, as text), or null if someone else holds the key.
   */
  async claim(
    tenant: string,
    key: string,
    fingerprint: string,
    leaseSeconds: number,
  ): Promise<string | null> {
    const rows = (await this.db.query(
      `INSERT INTO idempotency_keys (tenant, key, fingerprint, state, created_at, expires_at)
       VALUES ($1, $2, $3, 'processing', now(), now() + make_interval(secs => $4))
       ON CONFLICT (tenant, key) DO UPDATE
         SET fingerprint = EXCLUDED.fingerprint, state = 'processing', response_status = NULL,
             response_sealed = NULL, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
         WHERE idempotency_keys.expires_at <= now()
       RETURNING created_at::text AS claim`,
      [tenant, key, fingerprint, leaseSeconds],
    )) as Array<{ claim: string }>;
    return rows.length === 1 ? rows[0].claim : null;
  }

  /** Extends a live claim's lease. */
  async renewLease(tenant: string, key: string, claim: string, leaseSeconds: number): Promise<void> {
    await this.db.query(
      `UPDATE idempotency_keys SET expires_at = now() + make_interval(secs => $4)
        WHERE tenant = $1 AND key = $2 AND state = 'processing' AND created_at = $3::timestamptz`,
      [tenant, key, claim, leaseSeconds],
    );
  }

  async find(tenant: string, key: string): Promise<IdempotencyRow | undefined> {
    const rows = (await this.db.query(
      `SELECT fingerprint, state, response_status, response_sealed FROM idempotency_keys WHERE tenant = $1 AND key = $2`,
      [tenant, key],
    )) as IdempotencyRow[];
    return rows[0];
  }

  /** Completes this claim (`ttlHours` from the claim); a claim lost meanwhile (lease ran out) is left alone. */
  async complete(
    tenant: string,
    key: string,
    claim: string,
    status: number,
    sealed: string,
    ttlHours: number,
  ): Promise<void> {
    await this.db.query(
      `UPDATE idempotency_keys SET state = 'completed', response_status = $4, response_sealed = $5,
              expires_at = created_at + make_interval(hours => $6)
        WHERE tenant = $1 AND key = $2 AND state = 'processing' AND created_at = $3::timestamptz`,
      [tenant, key, claim, status, sealed, ttlHours],
    );
  }

  async release(tenant: string, key: string, claim: string): Promise<void> {
    await this.db.query(
      `DELETE FROM idempotency_keys
        WHERE tenant = $1 AND key = $2 AND state = 'processing' AND created_at = $3::timestamptz`,
      [tenant, key, claim],
    );
  }

  /** Deletes up to `batch` expired records of any tenant; how many. */
  async deleteExpiredAcrossWorkspaces(batch: number): Promise<number> {
    const deleted = rowsOf(
      await this.db.query(
        `DELETE FROM idempotency_keys WHERE ctid IN
           (SELECT ctid FROM idempotency_keys WHERE expires_at <= now() LIMIT $1)
         RETURNING 1`,
        [batch],
      ),
    );
    return deleted.length;
  }
}
