import { Ajv, type AnySchema, type Options } from "ajv";
import ajvFormats from "ajv-formats";

const OPTIONS: Options = { useDefaults: true, allErrors: true, strict: false };

function withFormats(ajv: Ajv): Ajv {
  // ajv-formats is CommonJS: under NodeNext its plugin function is the `default` property.
  ajvFormats.default(ajv);
  return ajv;
}

/**
 * Checks schemas against the JSON Schema meta-schema for every plugin Ajv. Ajv compiles its
 * meta-schema once per instance (most of a plugin load's schema time, four times per start
 * with the example plugins); this instance, with the same options and formats, compiles it
 * once per process.
 */
let metaSchemaChecker: Ajv | undefined;

class PluginAjv extends Ajv {
  override validateSchema(schema: AnySchema, throwOrLogError?: boolean): boolean | Promise<unknown> {
    metaSchemaChecker ??= withFormats(new Ajv(OPTIONS));
    return metaSchemaChecker.validateSchema(schema, throwOrLogError);
  }
}

/**
 * A schema compiler. Each load of a plugin gets its own for the schemas its author wrote:
 * a schema with an `$id` stays registered in its Ajv for good, so one shared Ajv refused the
 * same `$id` on reload and between plugins.
 */
export function createPluginAjv(): Ajv {
  return withFormats(new PluginAjv(OPTIONS));
}
