import type { Ajv } from "ajv";
import type { JsonSchema } from "../sdk/types.ts";

export type PluginConfigResult =
  | { ok: true; config: Record<string, unknown> }
  | { ok: false; problems: string[] };

/**
 * Checks `plugins.config.<id>` against the plugin's config schema and fills its defaults,
 * on a copy: the bot config object is never changed.
 */
export function validatePluginConfig(ajv: Ajv, schema: JsonSchema, input: unknown): PluginConfigResult {
  const validate = ajv.compile(schema);
  const config = structuredClone(input ?? {}) as Record<string, unknown>;
  if (validate(config)) return { ok: true, config };
  const problems = (validate.errors ?? []).map((error) => {
    const where = error.instancePath ? error.instancePath.slice(1).replaceAll("/", ".") : "(config)";
    return `${where}: ${error.message}`;
  });
  return { ok: false, problems };
}
