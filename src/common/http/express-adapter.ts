/**
 * Express as Nest drives it, with one change: a JSON body (a plain object or array) is written as
 * JSON text with `res.end()` instead of `res.json()`, which first copies every body of 1,000
 * characters or more into a Buffer (bench/contacts.mjs: about 5 % of a list request's CPU). Same
 * status, `Content-Type: application/json; charset=utf-8`, Content-Length (Node computes it for a
 * single `end()`), bytes and HEAD handling. Everything else (no body, streams, buffers, errors,
 * 204/304, a non-JSON Content-Type already set) goes through Nest's own reply.
 */
import { StreamableFile } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Response } from 'express';

const JSON_TYPE = 'application/json; charset=utf-8';

export class ServiceExpressAdapter extends ExpressAdapter {
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
