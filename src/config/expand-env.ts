/**
 * `${VAR}` and `${VAR:-default}` in string values of the parsed config, like a POSIX shell:
 * - `${VAR}` is VAR's value, or "" when VAR is unset (no error, so optional secrets such as
 *   `token: ${TSUMUGI_TOKEN}` simply stay empty);
 * - `${VAR:-default}` is `default` when VAR is unset or empty;
 * - `$${...}` is the literal text `${...}`.
 * Keys are never expanded. Anything else containing `$` is left as written.
 */
const REFERENCE = /\$(\$?)\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export function expandEnvInString(text: string, env: NodeJS.ProcessEnv): string {
  return text.replace(REFERENCE, (whole, escaped: string, name: string, fallback: string | undefined) => {
    if (escaped) return whole.slice(1);
    const value = env[name] ?? "";
    return fallback !== undefined && value === "" ? fallback : value;
  });
}

/** Expands references in every string inside `value` (objects and arrays are copied). */
export function expandEnv(value: unknown, env: NodeJS.ProcessEnv): unknown {
  if (typeof value === "string") return expandEnvInString(value, env);
  if (Array.isArray(value)) return value.map((item) => expandEnv(item, env));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, expandEnv(item, env)]));
  }
  return value;
}

/** The references `text` would expand, as written (`${VAR}`, `${VAR:-default}`); `$${…}` is none. */
export function envReferences(text: string): string[] {
  return [...text.matchAll(REFERENCE)].filter(([, escaped]) => !escaped).map(([whole]) => whole);
}

/** `text` is one reference with no default, or an empty one (`${VAR}`, `${VAR:-}`): it shows only a name. */
export function isBareReference(text: string): boolean {
  return /^\$\{[A-Za-z_][A-Za-z0-9_]*(?::-)?\}$/.test(text);
}
