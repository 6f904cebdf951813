/**
 * Express as Nest drives it, with two changes.
 *
 * 1. The HTTP server creates its requests and responses with every property the middleware chain
 * later adds already in place (`ShapedRequest`, `ShapedResponse`). Express, the router, body-parser
 * and our middleware each add properties to `req` as it passes, so the same code sees a different
 * object shape at each step; V8 then treats those property accesses as megamorphic and resolves
 * many of them in its runtime. With the shape fixed at construction every step sees one shape
 * (bench/contacts.mjs: about 10 % of a list request's CPU).
 *
 * 2. A JSON body (a plain object or array) is written as
 * JSON text with `res.end()` instead of `res.json()`, which first copies every body of 1,000
 * characters or more into a Buffer (bench/contacts.mjs: about 5 % of a list request's CPU). Same
 * status, `Content-Type: application/json; charset=utf-8`, Content-Length (Node computes it for a
 * single `end()`), bytes and HEAD handling. Everything else (no body, streams, buffers, errors,
 * 204/304, a non-JSON Content-Type already set) goes through Nest's own reply.
 */
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import { StreamableFile, type NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Response } from 'express';

/** A request with the properties Express, the router, body-parser and request-context.ts set. */
export class ShapedRequest extends IncomingMessage {
  res: unknown = undefined;
  next: unknown = undefined;
  baseUrl = '';
  originalUrl = '';
  _parsedUrl: unknown = undefined;
  params: unknown = undefined;
  route: unknown = undefined;
  body: unknown = undefined;
  id = '';
  startedAt = 0n;
  principal: unknown = undefined;
}

/**
 * A response with the properties set after construction: `locals` (Express), `statusCode` (200 is
 * otherwise a prototype default until `res.status()` sets it) and `_maxRequestsPerSocket` (Node's
 * server sets it right after construction).
 */
export class ShapedResponse<Req extends IncomingMessage = IncomingMessage> extends ServerResponse<Req> {
  locals: unknown = undefined;
  override statusCode = 200;
  _maxRequestsPerSocket: number | undefined = undefined;
}

const JSON_TYPE = 'application/json; charset=utf-8';

export class ServiceExpressAdapter extends ExpressAdapter {
  override initHttpServer(options: NestApplicationOptions): void {
    if (options?.httpsOptions || options?.return503OnClosing || options?.forceCloseConnections) {
      super.initHttpServer(options);
      return;
    }
    this.httpServer = createServer(
      { IncomingMessage: ShapedRequest, ServerResponse: ShapedResponse },
      this.getInstance(),
    );
  }

  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    const type = response.getHeader('Content-Type');
    if (
      body === null ||
      typeof body !== 'object' ||
      body instanceof StreamableFile ||
      body instanceof Error ||
      Buffer.isBuffer(body) ||
      ArrayBuffer.isView(body) ||
      statusCode === 204 ||
      statusCode === 304 ||
      (type !== undefined && !String(type).toLowerCase().startsWith('application/json'))
    ) {
      return super.reply(response, body, statusCode);
    }
    if (statusCode !== undefined) response.status(statusCode);
    if (type === undefined) response.setHeader('Content-Type', JSON_TYPE);
    return response.end(JSON.stringify(body));
  }
}
