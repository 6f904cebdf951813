/** Path ids: a malformed id is indistinguishable from a missing one (404), never a 500. */
import { Injectable, type PipeTransform } from '@nestjs/common';
import { ApiError } from './api-error.js';

const INT_RE = /^[1-9]\d{0,15}$/;

/** Ids are 64-bit in the database and JSON integers in the API: 1..2^53-1. */
export const MAX_ID = Number.MAX_SAFE_INTEGER;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

@Injectable()
export class IntIdPipe implements PipeTransform<string, number> {
  transform(value: string): number {
    if (typeof value !== 'string' || !INT_RE.test(value)) throw ApiError.notFound();
    const n = Number(value);
    if (n > MAX_ID) throw ApiError.notFound();
    return n;
  }
}

@Injectable()
export class UuidPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (typeof value !== 'string' || !UUID_RE.test(value)) throw ApiError.notFound();
    return value.toLowerCase();
  }
}

export const isUuid = (value: string): boolean => UUID_RE.test(value);
