/**
 * Global validation: bodies reject unknown fields (422 naming the field), queries ignore unknown
 * parameters (they never widen a result). Errors name the field dotted, array items by index.
 */
import {
  HttpException,
  Injectable,
  ValidationPipe,
  type ArgumentMetadata,
  type PipeTransform,
} from '@nestjs/common';
import { ValidateBy, type ValidationError } from 'class-validator';
import { ApiError } from './api-error.js';

/** A missing value says "required"; otherwise a type check says more than a bound on a wrong type. */
const TYPE_CHECKS =
  /^(isDefined|isString|isInt|isNumber|isBoolean|isObject|isArray|isEnum|isIn|isUUID|isEmail)/;

function mostTelling(keys: string[], _value: unknown): string {
  return keys.find((k) => k === 'isDefined') ?? keys.find((k) => TYPE_CHECKS.test(k)) ?? keys[0];
}

function firstError(errors: ValidationError[], parent = ''): { field: string; message: string } | undefined {
  for (const e of errors) {
    const field = parent ? `${parent}.${e.property}` : e.property;
    if (e.constraints && Object.keys(e.constraints).length) {
      const constraints = e.constraints;
      const keys = Object.keys(constraints);
      const key = 'whitelistValidation' in constraints ? 'whitelistValidation' : mostTelling(keys, e.value);
      const message =
        key === 'whitelistValidation'
          ? `${field} is not a recognised field`
          : e.value === undefined && key !== 'isDefined'
            ? `${field} is required`
            : constraints[key].replace(e.property, field);
      return { field, message };
    }
    if (e.children?.length) {
      const nested = firstError(e.children, field);
      if (nested) return nested;
    }
  }
  return undefined;
}

/**
 * The dotted path of the first string (value or object key) that PostgreSQL could not store: a NUL
 * character, or an unpaired UTF-16 surrogate (not valid Unicode). Iterative, so depth cannot overflow.
 */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function unstorableStringPath(value: unknown): string | undefined {
  const bad = (s: string): boolean => s.includes('\u0000') || LONE_SURROGATE.test(s);
  const stack: Array<[unknown, string]> = [[value, '']];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (bad(v)) return path;
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => stack.push([item, path ? `${path}.${i}` : String(i)]));
    } else if (v && typeof v === 'object') {
      for (const [k, item] of Object.entries(v as Record<string, unknown>)) {
        const child = path ? `${path}.${k}` : k;
        if (bad(k)) return path || 'body';
        stack.push([item, child]);
      }
    }
  }
  return undefined;
}

/**
 * A string PostgreSQL can store: no NUL character, no unpaired surrogate. Not applied globally (some
 * modules store lone surrogates as U+FFFD or report them per import row); DTOs opt in.
 */
export function IsStorableText(): PropertyDecorator {
  return ValidateBy({
    name: 'isStorableText',
    validator: {
      validate: (value: unknown) => typeof value !== 'string' || unstorableStringPath(value) === undefined,
      defaultMessage: (args) =>
        `${args?.property ?? 'value'} must be valid Unicode text without NUL characters`,
    },
  });
}

export function validationException(errors: ValidationError[]): ApiError {
  const first = firstError(errors) ?? { field: 'body', message: 'Request body is invalid' };
  return ApiError.validation(first.field, first.message);
}

const common = {
  transform: true,
  whitelist: true,
  exceptionFactory: validationException,
  // The value is kept on each error (never echoed) to tell a missing field from an invalid one.
  validationError: { target: false, value: true },
};

@Injectable()
export class ServiceValidationPipe implements PipeTransform {
  private readonly body = new ValidationPipe({ ...common, forbidNonWhitelisted: true });
  private readonly query = new ValidationPipe({ ...common, forbidNonWhitelisted: false });

  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type === 'body') {
      if (metadata.metatype && metadata.metatype !== Object && (value === undefined || value === null)) {
        value = {};
      }
      if (typeof value !== 'object' || Array.isArray(value)) {
        throw ApiError.validation('body', 'Request body must be a JSON object');
      }
      return contained(this.body.transform(value, metadata), 'body');
    }
    if (metadata.type === 'query') return contained(this.query.transform(value, metadata), 'query');
    return value;
  }
}

/**
 * Defence in depth: a validator that throws instead of answering false (validator.js's isEmail
 * throws URIError on a lone surrogate) is a refused input, never a 500. The body check of
 * request-body.ts refuses such strings first, naming the field; this only catches what it cannot.
 */
async function contained(result: Promise<unknown>, where: 'body' | 'query'): Promise<unknown> {
  try {
    return await result;
  } catch (err) {
    if (err instanceof HttpException) throw err;
    if (where === 'body') throw ApiError.validation('body', 'Request body holds a value that is not valid');
    throw new ApiError(400, 'invalid_request', 'The query string holds a value that is not valid');
  }
}
