import { isRecord } from "../../util/values.ts";
import type { ToolSpec } from "../types.ts";

/**
 * Tool calls of a local model are generated under a grammar, so even a small model can only
 * write a call of an offered tool with arguments of the declared shape. The grammar comes
 * from node-llama-cpp's JSON Schema support, which knows a subset of JSON Schema and writes
 * every property it is given: optional properties become "this or null", and nulls written
 * for them are removed again when the call is read back.
 */

type Schema = Record<string, unknown>;

/** Longest nesting followed; deeper values may be any JSON scalar. */
const MAX_DEPTH = 8;
const ANY_SCALAR: Schema = { type: ["string", "number", "boolean", "null"] };
const GRAMMAR_FORMATS = new Set(["date-time", "time", "date"]);

/** The shape of one answer: `{"name": <tool>, "arguments": {…}}` for one of `tools`. */
export function toolCallSchema(tools: ToolSpec[]): Schema {
  const calls = tools.map((tool) => ({
    type: "object",
    properties: { name: { const: tool.name }, arguments: grammarSchema(tool.parameters, 0) },
    required: ["name", "arguments"],
    additionalProperties: false,
  }));
  return calls.length === 1 ? calls[0]! : { oneOf: calls };
}

export type ParsedToolCall =
  | { ok: true; name: string; input: Record<string, unknown> }
  | { ok: false; name?: string; text: string };

/** Reads a generated answer back; an answer cut short (token limit) is reported with its raw text. */
export function parseToolCall(text: string, tools: ToolSpec[]): ParsedToolCall {
  const raw = text.trim();
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return { ok: false, name: tools.find((tool) => raw.includes(`"${tool.name}"`))?.name, text: raw };
  }
  const tool = isRecord(parsed) ? tools.find((candidate) => candidate.name === parsed.name) : undefined;
  if (!tool || !isRecord(parsed) || !isRecord(parsed.arguments)) return { ok: false, text: raw };
  return { ok: true, name: tool.name, input: withoutNullOptionals(tool.parameters, parsed.arguments) };
}

/** The JSON Schema subset node-llama-cpp turns into a grammar; unsupported keywords are left out. */
function grammarSchema(schema: unknown, depth: number): Schema {
  if (!isRecord(schema) || depth > MAX_DEPTH) return ANY_SCALAR;
  if ("const" in schema && isScalar(schema.const)) return { const: schema.const };
  if (Array.isArray(schema.enum)) return { enum: schema.enum.filter(isScalar) };
  const alternatives = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(alternatives))
    return { oneOf: alternatives.map((item) => grammarSchema(item, depth + 1)) };
  if (Array.isArray(schema.type)) {
    return { oneOf: schema.type.map((type) => grammarSchema({ ...schema, type }, depth + 1)) };
  }
  switch (schema.type) {
    case "string":
      return stringSchema(schema);
    case "number":
    case "integer":
    case "boolean":
    case "null":
      return { type: schema.type };
    case "array":
      return {
        type: "array",
        items: grammarSchema(schema.items, depth + 1),
        ...numberKeys(schema, ["minItems", "maxItems"]),
      };
    case "object":
      return objectSchema(schema, depth);
    default:
      return isRecord(schema.properties) ? objectSchema(schema, depth) : ANY_SCALAR;
  }
}

function stringSchema(schema: Schema): Schema {
  if (typeof schema.format === "string" && GRAMMAR_FORMATS.has(schema.format)) {
    return { type: "string", format: schema.format };
  }
  return { type: "string", ...numberKeys(schema, ["minLength", "maxLength"]) };
}

function objectSchema(schema: Schema, depth: number): Schema {
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const properties: Record<string, Schema> = {};
  for (const [key, value] of Object.entries(isRecord(schema.properties) ? schema.properties : {})) {
    const property = grammarSchema(value, depth + 1);
    properties[key] = required.has(key) ? property : { oneOf: [property, { type: "null" }] };
  }
  // Extra keys only where the schema describes them: a model must not invent arguments.
  const additionalProperties = isRecord(schema.additionalProperties)
    ? grammarSchema(schema.additionalProperties, depth + 1)
    : false;
  return { type: "object", properties, additionalProperties };
}

/** Removes the nulls the grammar let the model write for optional properties, at every level. */
function withoutNullOptionals(schema: unknown, value: Record<string, unknown>): Record<string, unknown> {
  if (!isRecord(schema) || !isRecord(schema.properties)) return value;
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (item === null && !required.has(key)) continue;
    const propertySchema = schema.properties[key];
    out[key] = isRecord(item) ? withoutNullOptionals(propertySchema, item) : item;
  }
  return out;
}

function numberKeys(schema: Schema, keys: string[]): Schema {
  const out: Schema = {};
  for (const key of keys) if (typeof schema[key] === "number") out[key] = schema[key];
  return out;
}

function isScalar(value: unknown): boolean {
  return value === null || ["string", "number", "boolean"].includes(typeof value);
}
