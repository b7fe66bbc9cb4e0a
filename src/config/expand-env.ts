import { readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * `${VAR}` and `${VAR:-default}` in string values of the parsed config, like a POSIX shell:
 * - `${VAR}` is VAR's value, or "" when VAR is unset (no error, so optional secrets such as
 *   `token: ${TSUMUGI_TOKEN}` simply stay empty);
 * - `${VAR:-default}` is `default` when VAR is unset or empty;
 * - `${credential:NAME}` is the systemd credential NAME (`LoadCredential=`): the file NAME in
 *   $CREDENTIALS_DIRECTORY without its final line break, or "" when there is none, so secrets
 *   need not pass through the environment;
 * - `$${...}` is the literal text `${...}`.
 * Keys are never expanded. Anything else containing `$` is left as written.
 */
const REFERENCE = /\$(\$?)\{(credential:[A-Za-z0-9_.@-]+|[A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;
const CREDENTIAL_PREFIX = "credential:";

export function expandEnvInString(text: string, env: NodeJS.ProcessEnv): string {
  return text.replace(REFERENCE, (whole, escaped: string, name: string, fallback: string | undefined) => {
    if (escaped) return whole.slice(1);
    const value = name.startsWith(CREDENTIAL_PREFIX)
      ? readCredential(name.slice(CREDENTIAL_PREFIX.length), env)
      : (env[name] ?? "");
    return fallback !== undefined && value === "" ? fallback : value;
  });
}

function readCredential(name: string, env: NodeJS.ProcessEnv): string {
  const directory = env.CREDENTIALS_DIRECTORY;
  if (!directory) return "";
  try {
    return readFileSync(join(directory, name), "utf8").replace(/\r?\n$/, "");
  } catch {
    return "";
  }
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

/**
 * One line per `${VAR}` (without a default) whose variable is not set, naming it and the key it
 * stands under: such a key is silently empty, the usual reason a token or API key "does not work".
 */
export function unsetVariableWarnings(value: unknown, env: NodeJS.ProcessEnv, key = ""): string[] {
  if (typeof value === "string") {
    return [...value.matchAll(REFERENCE)]
      .filter(
        ([, escaped, name, fallback]) =>
          !escaped &&
          fallback === undefined &&
          !name!.startsWith(CREDENTIAL_PREFIX) &&
          env[name!] === undefined,
      )
      .map(([, , name]) => `${key}: the environment variable ${name} is not set, so ${key} is empty`);
  }
  if (Array.isArray(value))
    return value.flatMap((item, index) => unsetVariableWarnings(item, env, `${key}[${index}]`));
  if (value !== null && typeof value === "object") {
    return Object.entries(value).flatMap(([name, item]) =>
      unsetVariableWarnings(item, env, key === "" ? name : `${key}.${name}`),
    );
  }
  return [];
}

/** The references `text` would expand, as written (`${VAR}`, `${VAR:-default}`); `$${…}` is none. */
export function envReferences(text: string): string[] {
  return [...text.matchAll(REFERENCE)].filter(([, escaped]) => !escaped).map(([whole]) => whole);
}

/** `text` is one reference with no default, or an empty one (`${VAR}`, `${VAR:-}`): it shows only a name. */
export function isBareReference(text: string): boolean {
  return /^\$\{(credential:[A-Za-z0-9_.@-]+|[A-Za-z_][A-Za-z0-9_]*)(?::-)?\}$/.test(text);
}
