/**
 * Constraints of a request DTO that span several fields ("exactly one of email or domain"): what
 * class-validator checks in the service, stated once next to the DTO and merged into its schema in
 * the API document (src/openapi/conventions.ts), so generators and gateways enforce the same rule.
 */
const RULES = new Map<string, Record<string, unknown>>();

export function ApiSchemaRules(rules: Record<string, unknown>): ClassDecorator {
  return (target) => {
    RULES.set((target as unknown as { name: string }).name, rules);
  };
}

/** `oneOf` each of the fields alone: exactly one of them is sent. */
export const exactlyOneOf = (...fields: string[]): Record<string, unknown> => ({
  oneOf: fields.map((f) => ({ required: [f] })),
});

export function schemaRules(): ReadonlyMap<string, Record<string, unknown>> {
  return RULES;
}
