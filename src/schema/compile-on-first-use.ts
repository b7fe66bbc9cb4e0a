import { Ajv, type ErrorObject, type Options, type ValidateFunction } from "ajv";

/**
 * Compiling a schema costs milliseconds, and at module level every one of them is paid by each
 * start-up, also for features that are off (a platform nobody connects, a search provider
 * nobody configured). These build the compiler and compile the schema when a value is first
 * checked, then keep both.
 */

/** A schema check as Ajv's compiled function is used: a type guard whose `errors` describe the last failure. */
export interface SchemaCheck<T> {
  (value: unknown): value is T;
  readonly errors: ErrorObject[] | null | undefined;
}

/** One compiler for the schemas of a module, created when the first of them is compiled. */
export function ajvOnFirstUse(options: Options): () => Ajv {
  let ajv: Ajv | undefined;
  return () => {
    ajv ??= new Ajv(options);
    return ajv;
  };
}

/** `schema` compiled with `ajv()` at the first check. */
export function checkOnFirstUse<T>(ajv: () => Ajv, schema: object): SchemaCheck<T> {
  let validate: ValidateFunction<T> | undefined;
  const check = (value: unknown): value is T => {
    validate ??= ajv().compile<T>(schema);
    return validate(value);
  };
  Object.defineProperty(check, "errors", { get: () => validate?.errors });
  return check as SchemaCheck<T>;
}
