import { Ajv, type CodeOptions, type ValidateFunction } from "ajv";
import { configFormats } from "./config-formats.ts";
import { configJsonSchema, type TsumugiConfig } from "./schema.ts";

/**
 * The config schema's Ajv: defaults are filled in, numbers and booleans written as strings
 * (typically from `${VAR}`) are coerced, errors carry their schema for the messages.
 * `code` is for the build, which compiles the same schema ahead of time.
 */
export function configAjv(code?: CodeOptions): Ajv {
  const ajv = new Ajv({
    useDefaults: true,
    allErrors: true,
    coerceTypes: true,
    discriminator: true,
    verbose: true,
    strict: true,
    ...(code ? { code } : {}),
  });
  for (const [name, format] of Object.entries(configFormats)) {
    ajv.addFormat(name, { type: "string", validate: format.validate });
  }
  return ajv;
}

/**
 * Compiles the config schema. Run from source (tests, tsx) this compiles at run time; the
 * compiled server gets this module replaced by the same validator generated at build time
 * (scripts/build-server.ts), since compiling took most of a start's CPU.
 */
export function compileConfigSchema(): ValidateFunction<TsumugiConfig> {
  return configAjv().compile<TsumugiConfig>(configJsonSchema);
}
