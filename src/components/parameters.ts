import type { JsonSchema, ParametersDeclaration, ToolParameterInfo } from "../sdk/types.ts";

/**
 * Turns any of the three ways to declare parameters into one object JSON Schema:
 * a list of parameter descriptions, a property map, or a full object schema (kept as
 * written). The first two refuse unknown arguments, as reply extensions' parameters do. References are
 * refused everywhere: the schema goes to providers that cannot follow them.
 */
export function normalizeParameters(declared: ParametersDeclaration | undefined): JsonSchema {
  const schema = toObjectSchema(declared);
  const reference = findReference(schema, "");
  if (reference) {
    throw new Error(`parameters use ${reference}: $ref and $dynamicRef are not supported, declare inline`);
  }
  return schema;
}

function toObjectSchema(declared: ParametersDeclaration | undefined): JsonSchema {
  if (declared === undefined) return { type: "object", properties: {}, additionalProperties: false };
  if (Array.isArray(declared)) return fromList(declared);
  if (typeof declared !== "object" || declared === null) {
    throw new Error("parameters must be a list, a property map or an object JSON Schema");
  }
  if (declared.type === "object") return declared;
  if (declared.type !== undefined && typeof declared.type === "string") {
    throw new Error(`parameters must describe an object, not a ${declared.type}`);
  }
  return { type: "object", properties: declared, additionalProperties: false };
}

function fromList(list: ToolParameterInfo[]): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const parameter of list) {
    if (!parameter || typeof parameter.name !== "string" || !parameter.name) {
      throw new Error("every parameter in the list needs a name");
    }
    const { name, required: isRequired, ...schema } = parameter;
    properties[name] = schema;
    if (isRequired) required.push(name);
  }
  return {
    type: "object",
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}

function findReference(value: unknown, path: string): string | undefined {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findReference(item, `${path}/${index}`);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  for (const [key, item] of Object.entries(value)) {
    if (key === "$ref" || key === "$dynamicRef") return `${key} at ${path || "/"}`;
    const found = findReference(item, `${path}/${key}`);
    if (found) return found;
  }
  return undefined;
}
