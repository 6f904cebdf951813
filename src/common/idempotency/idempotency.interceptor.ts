/**
 * Idempotency-Key for POST and PATCH: atomic claim in PostgreSQL, fingerprint of
 * method + path + canonical body, replay with Idempotent-Replayed: true, 422 on changed content,
 * 409 while the first request runs. Responses are stored sealed (AES-256-GCM, bound to the record's
 * tenant and key); >= 500, 409 and 429 are not stored. Records expire 24 h after their claim.
 *
 * A claim holds a lease (`expires_at`, LEASE_SECONDS ahead, renewed while the handler runs): when the
 * process dies mid-request the lease runs out and the next request with that key takes the claim over
 * (the same one conditional INSERT … ON CONFLICT DO UPDATE … WHERE expired, so of two retries racing
 * after expiry exactly one wins). Each claim is identified by its `created_at`, so a request that
 * lost its claim (it outlived its lease) never stores over or releases its successor's claim.
 *
 * Bound by `bindIdempotency()` to every POST and PATCH handler of every controller rather than
 * globally: a global interceptor puts each GET through an rxjs pipeline that only passes the
 * result along (measurable CPU on every list request, docs/performance.md).
 */
import { createHash } from 'node:crypto';
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
import type { Response } from 'express';
import { from, lastValueFrom, type Observable } from 'rxjs';
import { IdempotencyRepository } from './idempotency.repository.js';
import { canonicalJson, seal, sha256Hex, unseal } from '../crypto/crypto.js';
import { idempotentResponseAt } from '../crypto/sealed-columns.js';
import { ApiError, type ErrorType } from '../http/api-error.js';
import { mapError } from '../http/error-mapping.js';
import type { ServiceRequest } from '../http/request-context.js';
import { logger } from '../logging/logger.js';
import { appConfig } from '../../config/app-config.js';

const KEY_RE = /^[\x21-\x7e]{1,255}$/;
const TTL_HOURS = 24;
/**
 * How long a `processing` claim holds without renewal: a key whose request died is usable again
 * after at most this long. Renewed every third of it while the handler runs.
 * IDEMPOTENCY_LEASE_SECONDS may only lower it (tests).
 */
export const LEASE_SECONDS = 60;
const leaseSeconds = (): number => Math.min(LEASE_SECONDS, appConfig().idempotencyLeaseSeconds);

interface StoredResponse {
  status: number;
  body: unknown;
}

@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(private readonly records: IdempotencyRepository) {}

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
    const fingerprint = requestFingerprint(req.method, `${req.baseUrl}${req.path}`, req.body);
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
    const claim = await this.claim(tenant, key, fingerprint);
    if (claim === null) return this.replay(tenant, key, fingerprint, res);
    const renew = this.keepLease(tenant, key, claim);
    try {
      const body = await lastValueFrom(next.handle(), { defaultValue: undefined });
      const status = res.statusCode;
      clearInterval(renew);
      await this.store(tenant, key, claim, { status, body });
      return body;
    } catch (err) {
      clearInterval(renew);
      const mapped = mapError(err, req.id);
      if (mapped.status >= 500 || mapped.status === 409 || mapped.status === 429) {
        await this.release(tenant, key, claim);
      } else {
        await this.store(tenant, key, claim, { status: mapped.status, body: mapped.body });
      }
      throw err;
    }
  }

  /** Extends this claim's lease every third of it while the handler runs (a live request keeps its key). */
  private keepLease(tenant: string, key: string, claim: string): NodeJS.Timeout {
    const timer = setInterval(
      () => {
        this.records
          .renewLease(tenant, key, claim, leaseSeconds())
          .catch((err: unknown) => logger.warn({ err: String(err) }, 'could not renew idempotency lease'));
      },
      (leaseSeconds() * 1000) / 3,
    );
    timer.unref();
    return timer;
  }

  private claim(tenant: string, key: string, fingerprint: string): Promise<string | null> {
    return this.records.claim(tenant, key, fingerprint, leaseSeconds());
  }

  private async replay(tenant: string, key: string, fingerprint: string, res: Response): Promise<unknown> {
    const row = await this.records.find(tenant, key);
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
    const stored = JSON.parse(
      unseal(row.response_sealed, idempotentResponseAt(tenant, key)),
    ) as StoredResponse;
    res.setHeader('Idempotent-Replayed', 'true');
    if (stored.status >= 400) {
      const { error } = stored.body as { error: { type: ErrorType; message: string; field?: string } };
      throw new ApiError(stored.status, error.type, error.message, error.field);
    }
    res.status(stored.status);
    return stored.body;
  }

  /** Completes this claim (24 h from the claim); a claim lost meanwhile (lease ran out) is left alone. */
  private async store(tenant: string, key: string, claim: string, response: StoredResponse): Promise<void> {
    try {
      await this.records.complete(
        tenant,
        key,
        claim,
        response.status,
        seal(JSON.stringify(response), idempotentResponseAt(tenant, key)),
        TTL_HOURS,
      );
    } catch (err) {
      logger.error({ err: String(err) }, 'could not store idempotent response');
      await this.release(tenant, key, claim);
    }
  }

  private async release(tenant: string, key: string, claim: string): Promise<void> {
    await this.records
      .release(tenant, key, claim)
      .catch((err: unknown) => logger.error({ err: String(err) }, 'could not release idempotency key'));
  }
}

/**
 * What identifies a request for its Idempotency-Key: method, path and body. A JSON body is hashed
 * as canonical JSON (key order does not matter; fingerprints of stored records stay valid); a raw
 * body (a Buffer: the import route reads its bytes itself) is hashed over its bytes, never turned
 * into JSON, so a 64 MiB body costs one streaming hash.
 */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  const head = `${method}\n${path}\n`;
  if (Buffer.isBuffer(body)) {
    return createHash('sha256').update(`${head}raw:`).update(body).digest('hex');
  }
  return sha256Hex(`${head}${canonicalJson(body ?? null)}`);
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
