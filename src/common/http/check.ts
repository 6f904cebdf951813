/**
 * One way to declare a custom class-validator rule on a DTO property: a name, a test, and the
 * message (fixed, or built from the property name and the value), with the usual options (`each`,
 * `groups`, …). Replaces a hand-written `registerDecorator` block per rule.
 */
import { registerDecorator, ValidateIf, type ValidationOptions } from 'class-validator';

export type CheckMessage = string | ((property: string, value: unknown) => string);

export function Check(
  name: string,
  test: (value: unknown) => boolean,
  message: CheckMessage,
  options?: ValidationOptions,
): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name,
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: {
        validate: (value: unknown) => test(value),
        defaultMessage: (args) =>
          typeof message === 'string'
            ? message
            : message(args?.property ?? String(propertyName), args?.value),
      },
    });
}

/**
 * Optional, but not nullable: an absent property is skipped, `null` is validated (and refused) like any
 * other wrong type. `@IsOptional()` skips `null` too, which lets a body the API document refuses through.
 */
export const IfPresent = (): PropertyDecorator => ValidateIf((_: unknown, v: unknown) => v !== undefined);
