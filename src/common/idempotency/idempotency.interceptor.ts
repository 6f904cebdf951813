/**
 * Idempotency-Key for POST and PATCH (CONTRACT §3): atomic claim in PostgreSQL, fingerprint of
 * method + path + canonical body, replay with Idempotent-Replayed: true, 422 on changed content,
 * 409 while the first request runs. Responses are stored sealed (AES-256-GCM); >= 500, 409 and 429
 * are not stored. Records expire after 24 h.
 *
 * Bound by `bindIdempotency()` to every POST and PATCH handler of every controller rather than
 * globally: a global interceptor puts each GET through an rxjs pipeline that only passes the
 * result along (about 25 µs of CPU per list request, bench/contacts.mjs).
 */
import {
  Injectable,
  RequestMethod,
  type CallHandler,
  type ExecutionContext,
  type INestApplication,
  type NestInterceptor,
} from '@nestjs/common';
import { INTERCEPTORS_METADATA, METHOD_METADATA } from '@nestjs/common/constants.js';
import { MetadataScanner, ModulesContainer } from '@nestjs/core';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Response } from 'express';
import { from, lastValueFrom, type Observable } from 'rxjs';
import type { DataSource } from 'typeorm';
import { canonicalJson, seal, sha256Hex, unseal } from '../crypto/crypto.js';
import { ApiError, type ErrorType } from '../http/api-error.js';
import { mapError } from '../http/error-mapping.js';
import type { ServiceRequest } from '../http/request-context.js';
import { logger } from '../logging/logger.js';

const KEY_RE = /^[\x21-\x7e]{1,255}$/;
const TTL_HOURS = 24;
/** Expired records are deleted in batches, at most this often per process, off the request path. */
const SWEEP_EVERY_MS = 10 * 60_000;
const SWEEP_BATCH = 5000;

interface StoredResponse {
  status: number;
  body: unknown;
}

@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private lastSweep = 0;

  constructor(@InjectDataSource() private readonly db: DataSource) {}

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = ctx.switchToHttp().getRequest<ServiceRequest>();
    const header = req.headers['idempotency-key'];
    if (header === undefined || (req.method !== 'POST' && req.method !== 'PATCH') || !req.principal) {
      return next.handle();
    }
    const key = Array.isArray(header) ? header[0] : header;
    if (!KEY_RE.test(key)) {
      throw ApiError.validation(
        'Idempotency-Key',
        'Idempotency-Key must be 1 to 255 visible ASCII characters',
      );
    }
    const p = req.principal;
    const tenant = p.workspaceId ? `ws:${p.workspaceId}` : `org:${p.organizationId}`;
    const fingerprint = sha256Hex(
      `${req.method}\n${req.baseUrl}${req.path}\n${canonicalJson(req.body ?? null)}`,
    );
    const res = ctx.switchToHttp().getResponse<Response>();
    return from(this.run(tenant, key, fingerprint, req, res, next));
  }

  private async run(
    tenant: string,
    key: string,
    fingerprint: string,
    req: ServiceRequest,
    res: Response,
    next: CallHandler,
  ): Promise<unknown> {
    const claimed = await this.claim(tenant, key, fingerprint);
    if (!claimed) return this.replay(tenant, key, fingerprint, res);
    try {
      const body = await lastValueFrom(next.handle(), { defaultValue: undefined });
      const status = res.statusCode;
      await this.store(tenant, key, { status, body });
      return body;
    } catch (err) {
      const mapped = mapError(err, req.id);
      if (mapped.status >= 500 || mapped.status === 409 || mapped.status === 429) {
        await this.release(tenant, key);
      } else {
        await this.store(tenant, key, { status: mapped.status, body: mapped.body });
      }
      throw err;
    }
  }

  /** Inserts the claim; an expired record is replaced. Returns false if someone else holds the key. */
  private async claim(tenant: string, key: string, fingerprint: string): Promise<boolean> {
    this.sweepExpired();
    const rows = (await this.db.query(
      `INSERT INTO idempotency_keys (tenant, key, fingerprint, state, expires_at)
       VALUES ($1, $2, $3, 'processing', now() + interval '${TTL_HOURS} hours')
       ON CONFLICT (tenant, key) DO UPDATE
         SET fingerprint = EXCLUDED.fingerprint, state = 'processing', response_status = NULL,
             response_sealed = NULL, created_at = now(), expires_at = EXCLUDED.expires_at
         WHERE idempotency_keys.expires_at <= now()
       RETURNING key`,
      [tenant, key, fingerprint],
    )) as unknown[];
    return rows.length === 1;
  }

  private async replay(tenant: string, key: string, fingerprint: string, res: Response): Promise<unknown> {
    const rows = (await this.db.query(
      `SELECT fingerprint, state, response_status, response_sealed FROM idempotency_keys WHERE tenant = $1 AND key = $2`,
      [tenant, key],
    )) as Array<{
      fingerprint: string;
      state: string;
      response_status: number | null;
      response_sealed: string | null;
    }>;
    const row = rows[0];
    if (!row)
      throw new ApiError(409, 'idempotency_key_in_use', 'A request with this Idempotency-Key is in progress');
    if (row.fingerprint !== fingerprint) {
      throw new ApiError(
        422,
        'idempotency_key_reused',
        'This Idempotency-Key was used with a different request',
        'Idempotency-Key',
      );
    }
    if (row.state !== 'completed' || !row.response_sealed) {
      throw new ApiError(409, 'idempotency_key_in_use', 'A request with this Idempotency-Key is in progress');
    }
    const stored = JSON.parse(unseal(row.response_sealed)) as StoredResponse;
    res.setHeader('Idempotent-Replayed', 'true');
    if (stored.status >= 400) {
      const { error } = stored.body as { error: { type: ErrorType; message: string; field?: string } };
      throw new ApiError(stored.status, error.type, error.message, error.field);
    }
    res.status(stored.status);
    return stored.body;
  }

  private async store(tenant: string, key: string, response: StoredResponse): Promise<void> {
    try {
      await this.db.query(
        `UPDATE idempotency_keys SET state = 'completed', response_status = $3, response_sealed = $4
          WHERE tenant = $1 AND key = $2`,
        [tenant, key, response.status, seal(JSON.stringify(response))],
      );
    } catch (err) {
      logger.error({ err: String(err) }, 'could not store idempotent response');
      await this.release(tenant, key);
    }
  }

  /** Deletes expired records (a claim replaces an expired one anyway; this keeps the table small). */
  private sweepExpired(): void {
    if (Date.now() - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = Date.now();
    this.db
      .query(
        `DELETE FROM idempotency_keys WHERE ctid IN
           (SELECT ctid FROM idempotency_keys WHERE expires_at <= now() LIMIT ${SWEEP_BATCH})`,
      )
      .catch((err: unknown) => logger.warn({ err: String(err) }, 'could not sweep idempotency keys'));
  }

  private async release(tenant: string, key: string): Promise<void> {
    await this.db
      .query(`DELETE FROM idempotency_keys WHERE tenant = $1 AND key = $2 AND state = 'processing'`, [
        tenant,
        key,
      ])
      .catch((err: unknown) => logger.error({ err: String(err) }, 'could not release idempotency key'));
  }
}

/** The handlers (controller prototype methods) of `app` answering one of `methods`. */
export function handlersFor(
  app: INestApplication,
  methods: RequestMethod[],
): Array<(...a: unknown[]) => unknown> {
  const scanner = new MetadataScanner();
  const out: Array<(...a: unknown[]) => unknown> = [];
  for (const module of app.get(ModulesContainer).values()) {
    for (const { metatype } of module.controllers.values()) {
      const proto = (metatype as { prototype?: Record<string, unknown> } | null)?.prototype;
      if (!proto) continue;
      for (const name of scanner.getAllMethodNames(proto)) {
        const handler = proto[name] as (...a: unknown[]) => unknown;
        if (methods.includes(Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod))
          out.push(handler);
      }
    }
  }
  return out;
}

/**
 * Adds the app's IdempotencyInterceptor to every POST and PATCH handler. Call before `app.init()`,
 * which reads each route's interceptors once.
 */
export function bindIdempotency(app: INestApplication): void {
  const interceptor = app.get(IdempotencyInterceptor);
  for (const handler of handlersFor(app, [RequestMethod.POST, RequestMethod.PATCH])) {
    const bound = (Reflect.getMetadata(INTERCEPTORS_METADATA, handler) as unknown[] | undefined) ?? [];
    if (!bound.includes(interceptor)) {
      Reflect.defineMetadata(INTERCEPTORS_METADATA, [...bound, interceptor], handler);
    }
  }
}
