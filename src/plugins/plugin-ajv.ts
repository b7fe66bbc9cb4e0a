import { Ajv } from "ajv";
import ajvFormats from "ajv-formats";

/**
 * A schema compiler. Each load of a plugin gets its own for the schemas its author wrote:
 * a schema with an `$id` stays registered in its Ajv for good, so one shared Ajv refused the
 * same `$id` on reload and between plugins. Costs about 8 ms per load (Ajv compiles its
 * meta-schema once per instance).
 */
export function createPluginAjv(): Ajv {
  const ajv = new Ajv({ useDefaults: true, allErrors: true, strict: false });
  // ajv-formats is CommonJS: under NodeNext its plugin function is the `default` property.
  ajvFormats.default(ajv);
  return ajv;
}
