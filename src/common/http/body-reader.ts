/**
 * Reading a request body with a byte limit that counts the *inflated* bytes: a
 * `Content-Encoding: gzip|deflate` body is inflated chunk by chunk and reading stops, with 413, as
 * soon as the inflated size passes the limit, so a small compressed body can never grow into a large
 * one in memory. Used after the credential check (never before it) by the API-key guard and by
 * routes that authenticate themselves (the inbound mail pipe).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { createGunzip, createInflate } from 'node:zlib';
import { ApiError } from './api-error.js';

export const MiB = 1024 * 1024;

export function payloadTooLarge(limit: number): ApiError {
  return new ApiError(413, 'payload_too_large', `The request body is over the limit of ${limit} bytes`);
}

/** body-parser's own test: a request with neither header carries no body. */
export function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || req.headers['content-length'] !== undefined;
}

/** Counts bytes passing through and fails with 413 once they exceed `limit`. */
class ByteLimit extends Transform {
  private seen = 0;
  constructor(private readonly limit: number) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.limit) done(payloadTooLarge(this.limit));
    else done(null, chunk);
  }
}

/**
 * The request body as a stream of its decoded (inflated) bytes, failing with 413 past `limit`.
 * Throws at once (before reading anything) when Content-Length already says it is too large, or 400
 * for a Content-Encoding other than identity, gzip or deflate.
 */
export function bodyStream(req: IncomingMessage, limit: number): Readable {
  const encoding = String(req.headers['content-encoding'] ?? 'identity')
    .trim()
    .toLowerCase();
  const declared = Number(req.headers['content-length']);
  if (encoding === 'identity' && Number.isFinite(declared) && declared > limit) throw payloadTooLarge(limit);
  let source: Readable = req;
  if (encoding === 'gzip' || encoding === 'x-gzip') source = req.pipe(createGunzip());
  else if (encoding === 'deflate') source = req.pipe(createInflate());
  else if (encoding !== 'identity') {
    throw new ApiError(400, 'invalid_request', `Unsupported Content-Encoding "${encoding.slice(0, 40)}"`);
  }
  const limited = new ByteLimit(limit);
  if (source !== req) {
    source.on('error', () =>
      limited.destroy(new ApiError(400, 'invalid_request', 'The compressed body could not be inflated')),
    );
  }
  req.on('error', (err) => limited.destroy(err));
  return source.pipe(limited);
}

/** The whole decoded body as one Buffer of at most `limit` bytes (413 past it). */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  if (!hasBody(req)) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let failed: unknown;
  const stream = bodyStream(req, limit);
  try {
    for await (const chunk of stream) chunks.push(chunk as Buffer);
  } catch (err) {
    failed = err;
  }
  if (failed !== undefined) {
    // Stop reading the rest of an oversized upload; the connection closes after the answer.
    req.unpipe();
    req.resume();
    // 413/400 as decided above; anything else is the client going away (or the connection breaking)
    // before the whole body arrived: its fault, never a 500 or an "unavailable" 503.
    throw failed instanceof ApiError
      ? failed
      : new ApiError(400, 'invalid_request', 'Request body was not received completely');
  }
  return Buffer.concat(chunks);
}

/** How long an answered request's unread body is still drained before the connection is dropped. */
export const LINGER_MS = 5000;

/**
 * Lingering close (nginx's `lingering_close`) for an answer given before the request body was read
 * (401 first, 413 early): Node would close the socket as soon as the answer is flushed when the
 * client asked for `Connection: close`, while the client is still uploading; its next write then
 * meets a reset and it may never read the answer. Instead the connection stays while Node discards
 * the rest of the body (nothing is kept), for at most LINGER_MS, then it is dropped.
 */
export function lingerOnUnreadBody(req: IncomingMessage, res: ServerResponse): void {
  if (req.complete || !hasBody(req) || res.headersSent) return;
  res.shouldKeepAlive = true;
  const timer = setTimeout(() => req.socket.destroy(), LINGER_MS);
  timer.unref();
  const done = (): void => clearTimeout(timer);
  req.once('end', done);
  req.once('close', done);
}
