/** Path ids: a malformed id is indistinguishable from a missing one (404), never a 500. */
import { Injectable, type PipeTransform } from '@nestjs/common';
import { ApiError } from './api-error.js';

const INT_RE = /^[1-9]\d{0,9}$/;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

@Injectable()
export class IntIdPipe implements PipeTransform<string, number> {
  transform(value: string): number {
    if (typeof value !== 'string' || !INT_RE.test(value)) throw ApiError.notFound();
    const n = Number(value);
    if (n > 2_147_483_647) throw ApiError.notFound();
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
