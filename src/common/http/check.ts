/**
 * One way to declare a custom class-validator rule on a DTO property: a name, a test, and the
 * message (fixed, or built from the property name and the value), with the usual options (`each`,
 * `groups`, …). Replaces a hand-written `registerDecorator` block per rule.
 */
import { registerDecorator, type ValidationOptions } from 'class-validator';

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
