/**
 * Every column that holds sealed values, and how each value's associated data names its row
 * (`sealedAt(table, column, row)`). `secrets:reencrypt` walks exactly this list; a new sealed column
 * is added here and sealed/opened through `sealedAt` with the same row naming.
 */
import { sealedAt } from './crypto.js';

export interface SealedColumn {
  table: string;
  column: string;
  /** The primary key columns (in order) and their PostgreSQL types. */
  key: Array<{ name: string; type: 'uuid' | 'integer' | 'text' }>;
  /** Only rows matching this SQL condition are live (others are never opened). */
  live?: string;
}

export const SEALED_COLUMNS: readonly SealedColumn[] = [
  { table: 'inboxes', column: 'smtp_sealed', key: [{ name: 'id', type: 'uuid' }] },
  { table: 'inboxes', column: 'imap_sealed', key: [{ name: 'id', type: 'uuid' }] },
  { table: 'inboxes', column: 'oauth_sealed', key: [{ name: 'id', type: 'uuid' }] },
  {
    table: 'oauth_flows',
    column: 'code_verifier_sealed',
    key: [{ name: 'state_hash', type: 'text' }],
    live: 'expires_at > now()',
  },
  { table: 'webhook_endpoints', column: 'secret_sealed', key: [{ name: 'id', type: 'integer' }] },
  {
    table: 'idempotency_keys',
    column: 'response_sealed',
    key: [
      { name: 'tenant', type: 'text' },
      { name: 'key', type: 'text' },
    ],
    // An expired record is never replayed (a claim replaces it, the sweep deletes it).
    live: 'expires_at > now()',
  },
];

/**
 * The row part of the associated data: the key values joined by a space. Unambiguous: only the
 * last key part (an Idempotency-Key, visible ASCII) could hold a space, and it cannot.
 */
export const rowName = (values: ReadonlyArray<string | number>): string => values.join(' ');

/** `webhook_endpoints.secret_sealed.<endpoint id>` */
export const webhookSecretAt = (endpointId: number | string): string =>
  sealedAt('webhook_endpoints', 'secret_sealed', Number(endpointId));

/**
 * `idempotency_keys.response_sealed.<tenant> <key>`: a stored response is bound to its record's
 * primary key (tenant + Idempotency-Key), so it replays only for that tenant and key.
 */
export const idempotentResponseAt = (tenant: string, key: string): string =>
  sealedAt('idempotency_keys', 'response_sealed', rowName([tenant, key]));
