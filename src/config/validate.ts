import type { ErrorObject, ValidateFunction } from "ajv";
import type { ConfigFormatName } from "../schema/formats.ts";
import { type KeyPath, keyPathFromPointer, problemAt } from "../schema/key-path.ts";
import { compileConfigSchema } from "./compiled-schema.ts";
import { configFormats } from "./config-formats.ts";
import { findCrossFieldProblems } from "./cross-checks.ts";
import type { TsumugiConfig } from "./schema.ts";

export type ConfigValidation = { ok: true; config: TsumugiConfig } | { ok: false; problems: string[] };

/**
 * The config validator: ajv fills defaults into the input (which it mutates), checks it
 * against the schema, then the checks that span several keys run on the typed result.
 * Numbers and booleans written as strings (typically from `${VAR}`) are coerced.
 */
export function validateConfig(input: unknown): ConfigValidation {
  const validateSchema = compiledConfigSchema();
  const data = input ?? {};
  if (!validateSchema(data)) {
    const problems = (validateSchema.errors ?? []).map((error) => describeError(error, data));
    return { ok: false, problems: [...new Set(problems)] };
  }
  const problems = findCrossFieldProblems(data);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, config: data };
}

/**
 * Compiled once per process, not at every load, reload and console save: the compiled
 * function depends only on the constant schema and keeps no state between calls.
 */
let compiled: ValidateFunction<TsumugiConfig> | undefined;

function compiledConfigSchema(): ValidateFunction<TsumugiConfig> {
  compiled ??= compileConfigSchema();
  return compiled;
}

function describeError(error: ErrorObject, data: unknown): string {
  const path = keyPathFromPointer(error.instancePath, data);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required":
      return problemAt([...path, String(params.missingProperty)], "required");
    case "additionalProperties":
      return problemAt([...path, String(params.additionalProperty)], "unknown key");
    case "type":
      return problemAt(path, typeReason(String(params.type), error.data));
    case "enum":
      return problemAt(path, oneOf(params.allowedValues as unknown[]));
    case "format": {
      const format = configFormats[params.format as ConfigFormatName];
      return problemAt(path, format?.problem ?? `must be ${String(params.format)}`);
    }
    case "minLength":
      return problemAt(path, params.limit === 1 ? "must not be empty" : (error.message ?? "too short"));
    case "discriminator":
      return discriminatorProblem(path, params, error.parentSchema);
    default:
      return problemAt(path, error.message ?? error.keyword);
  }
}

function typeReason(expected: string, value: unknown): string {
  switch (expected) {
    case "integer":
      return typeof value === "number" ? "must be a whole number" : "must be a number";
    case "string":
      // Unquoted ids such as `admins: [10001]` are the usual cause.
      return typeof value === "number" ? "must be a string (put it in quotes)" : "must be a string";
    case "array":
    case "object":
      return `must be an ${expected}`;
    default:
      return `must be a ${expected}`;
  }
}

function oneOf(values: readonly unknown[]): string {
  return `must be one of: ${values.map(String).join(", ")}`;
}

/** The tag of a tagged union (`mode`, `type`) is missing or names no variant. */
function discriminatorProblem(
  path: KeyPath,
  params: Record<string, unknown>,
  parentSchema: ErrorObject["parentSchema"],
): string {
  const tag = String(params.tag);
  if (params.tagValue === undefined) return problemAt([...path, tag], "required");
  const allowed: unknown[] = parentSchema?.properties?.[tag]?.enum ?? [];
  return problemAt([...path, tag], oneOf(allowed));
}
