import type { JsonSchema, Schema } from '../../lib/validation.ts';

/**
 * A request body's JSON Schema, read off the validation schema the route runs (each rule describes
 * itself: lib/validation.ts), so the OpenAPI document says exactly what the service checks.
 */
export function bodySchema(schema: Schema, extra: Record<string, JsonSchema> = {}): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [name, spec] of Object.entries(schema)) {
    let property: JsonSchema = {};
    for (const rule of spec.rules) property = { ...property, ...rule.describes };
    if (property['type'] === 'array') property = listLimits(property);
    if (spec.nullable && typeof property['type'] === 'string') property['type'] = [property['type'], 'null'];
    properties[name] = property;
    if (spec.required) required.push(name);
  }
  return {
    type: 'object',
    properties: { ...properties, ...extra },
    ...(required.length > 0 ? { required } : {}),
  };
}

/** rules.max/min speak of characters; on a list they count items. */
function listLimits({ maxLength, minLength, ...rest }: JsonSchema): JsonSchema {
  return {
    ...rest,
    ...(maxLength === undefined ? {} : { maxItems: maxLength }),
    ...(minLength === undefined ? {} : { minItems: minLength }),
  };
}

/** One field's JSON Schema (a query parameter validated like a body field). */
export function fieldSchema(schema: Schema, name: string): JsonSchema {
  return (bodySchema(schema)['properties'] as Record<string, JsonSchema>)[name] ?? {};
}
