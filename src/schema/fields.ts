import { type Static, type TProperties, type TSchema, Type } from "@sinclair/typebox";
import type { ConfigFormatName } from "./formats.ts";

/**
 * Building blocks of the config schema. Each module declares its own fragment with these
 * (e.g. `chat/config.ts`) and `config/schema.ts` composes the fragments, so a module never
 * imports the whole schema. Every field has a description and, where a value can be assumed,
 * a default.
 */

/** A string from a fixed list, as a plain `enum` (clearer errors and forms than a union). */
export function stringEnum<const Values extends readonly string[]>(
  values: Values,
  options: { description: string; default?: Values[number] },
) {
  return Type.Unsafe<Values[number]>({ type: "string", enum: [...values], ...options });
}

export function formattedString(
  format: ConfigFormatName,
  /** `writeOnly`: the value is a secret (a URL with a password): masked by the console, redacted in logs. */
  options: { description: string; default?: string; writeOnly?: boolean },
) {
  return Type.String({ format, ...options });
}

export function milliseconds(description: string, defaultValue: number, minimum = 1) {
  return Type.Integer({ minimum, default: defaultValue, description: `${description} (milliseconds)` });
}

export function count(description: string, defaultValue: number, minimum = 1) {
  return Type.Integer({ minimum, default: defaultValue, description });
}

/** A group of keys; absent groups are filled from their members' defaults. */
export function group<Properties extends TProperties>(description: string, properties: Properties) {
  return Type.Object(properties, { description, default: {}, additionalProperties: false });
}

/**
 * One object per value of `tag`, validated with ajv's `discriminator`: only the variant the
 * tag names is checked, so errors are about that variant and defaults come from it. A variant
 * may itself be a tagged union; it then names the outer tag in `outerTag`, where the outer
 * union's discriminator reads it.
 */
export function taggedUnion<const Variants extends TSchema[]>(
  tag: string,
  tagValues: readonly string[],
  variants: [...Variants],
  options: { description: string; tagDefault?: string; outerTag?: TProperties },
) {
  return Type.Unsafe<Static<Variants[number]>>({
    type: "object",
    description: options.description,
    required: [tag],
    properties: {
      [tag]: {
        type: "string",
        enum: [...tagValues],
        ...(options.tagDefault === undefined ? {} : { default: options.tagDefault }),
      },
      ...options.outerTag,
    },
    discriminator: { propertyName: tag },
    oneOf: variants,
  });
}
