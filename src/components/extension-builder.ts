/**
 * Turns a reply extension declaration (the `@ReplyExtension` options, or the same fields from
 * a stdio plugin) into a host component. Any runtime calls this with its own `invoke`: an
 * async function taking the reply extension payload and resolving with the handler's result.
 */
import type { Ajv, ErrorObject } from "ajv";
import type { JsonSchema, ReplyExtensionOptions } from "../sdk/types.ts";
import { type Built, base, describe, type Identity, timeout } from "./builders.ts";
import { normalizeParameters } from "./parameters.ts";
import type { ReplyExtensionComponent } from "./types.ts";

export const DEFAULT_REPLY_EXTENSION_TIMEOUT_MS = 60_000;

export function buildReplyExtension(
  identity: Identity,
  options: ReplyExtensionOptions,
  ajv: Ajv,
  invoke: ReplyExtensionComponent["invoke"],
): Built<ReplyExtensionComponent> {
  const where = describe("reply extension", identity);
  if (typeof options !== "object" || options === null) throw new Error(`${where} needs options`);
  const description = options.description ?? "";
  if (typeof description !== "string") throw new Error(`${where}: description must be a string`);
  if (options.parameters === undefined) {
    throw new Error(`${where} needs parameters (a list, a property map or an object JSON Schema)`);
  }
  const priority = options.priority ?? 0;
  if (!Number.isInteger(priority)) throw new Error(`${where}: priority must be an integer`);
  let parameters: JsonSchema;
  let check: ReturnType<Ajv["compile"]>;
  try {
    parameters = refuseUnknown(normalizeParameters(options.parameters));
    check = ajv.compile(parameters);
    checkDefaults(parameters, ajv);
  } catch (error) {
    throw new Error(`${where}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return {
    component: {
      kind: "reply_extension",
      ...base(identity, description, options),
      parameters,
      priority,
      timeoutMs: timeout(options.timeout_ms, DEFAULT_REPLY_EXTENSION_TIMEOUT_MS, where),
      validate(values) {
        return check(values) ? undefined : (check.errors ?? []).map(problemText).join("; ");
      },
      invoke,
    },
    enabled: options.enabled !== false,
  };
}

/** Unknown reply extension parameters are refused by default, also under a full schema that says nothing. */
function refuseUnknown(schema: JsonSchema): JsonSchema {
  return "additionalProperties" in schema ? schema : { ...schema, additionalProperties: false };
}

/**
 * Reply extensions' rule: defaults are validated too. A default that breaks its own schema is refused here,
 * or every reply relying on it would be refused and the model blamed for it.
 */
function checkDefaults(schema: JsonSchema, ajv: Ajv): void {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  for (const [name, property] of Object.entries(properties)) {
    if (typeof property !== "object" || property === null || !("default" in property)) continue;
    const check = ajv.compile(property);
    if (!check(structuredClone(property.default))) {
      const why = ajv.errorsText(check.errors, { dataVar: name, separator: "; " });
      throw new Error(`the default of parameter "${name}" is invalid: ${why}`);
    }
  }
}

function problemText(error: ErrorObject): string {
  const where = error.instancePath.slice(1).replaceAll("/", ".");
  if (error.keyword === "additionalProperties") {
    const name = String(error.params.additionalProperty);
    return `unknown parameter "${where ? `${where}.` : ""}${name}"`;
  }
  if (error.keyword === "enum") {
    return `${where} must be one of ${JSON.stringify(error.params.allowedValues)}`;
  }
  return `${where || "parameters"} ${error.message ?? "is invalid"}`;
}
