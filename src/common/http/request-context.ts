import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Principal } from '../auth/principal.js';

export interface ServiceRequest extends Request {
  id: string;
  principal?: Principal;
  startedAt: bigint;
}

const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Assigns (or echoes a sane) X-Request-Id on every response. */
export function requestIdMiddleware(req: Request, res: Response, next: NextFunction): void {
  const sr = req as ServiceRequest;
  const incoming = req.header('x-request-id');
  sr.id = incoming && SANE_ID.test(incoming) ? incoming : randomUUID();
  sr.startedAt = process.hrtime.bigint();
  res.setHeader('X-Request-Id', sr.id);
  next();
}
