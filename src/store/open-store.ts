import { resolve } from "node:path";
import type { Logger } from "../log/logger.ts";
import { IN_MEMORY } from "./sqlite/database.ts";
import { openSqliteStores } from "./sqlite/open-sqlite.ts";
import { DEFAULT_OPTIONS, type StoreOptions } from "./store-options.ts";
import type { Stores } from "./types.ts";

const SQLITE_SCHEME = "sqlite:";
const POSTGRES_SCHEMES = ["postgres:", "postgresql:"];
const SCHEMES = `${SQLITE_SCHEME}, ${POSTGRES_SCHEMES.join(", ")}`;

/** `storage.url`'s scheme, lower-cased (`sqlite:`, `postgres:`, …); throws when it has none. */
function schemeOf(url: string): string {
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0];
  // The URL may hold a password: name it only when it has no scheme (then it is a path).
  if (scheme === undefined) throw new Error(`storage.url: no scheme in "${url}" (supported: ${SCHEMES})`);
  return scheme.toLowerCase();
}

/** Whether `storage.url` names a PostgreSQL database. */
export function isPostgresUrl(url: string): boolean {
  return POSTGRES_SCHEMES.some((scheme) => url.toLowerCase().startsWith(scheme));
}

/**
 * The database file `storage.url` names (`sqlite:<path>`, relative to the working directory),
 * or IN_MEMORY for `sqlite::memory:`.
 */
export function sqliteFileOf(url: string, cwd = process.cwd()): string {
  const scheme = schemeOf(url);
  if (scheme !== SQLITE_SCHEME)
    throw new Error(`storage.url: unsupported scheme "${scheme}" (supported: ${SCHEMES})`);
  const location = url.slice(SQLITE_SCHEME.length);
  if (location === "") throw new Error(`storage.url: "${url}" names no database file`);
  return location === IN_MEMORY ? IN_MEMORY : resolve(cwd, location);
}

/**
 * Opens the stores named by `storage.url` and starts pruning messages beyond the retention:
 * `sqlite:<path>` (relative paths resolve against the working directory), `sqlite::memory:`,
 * or a PostgreSQL server (`postgres://user:password@host:5432/database`, also `postgresql://`).
 */
export async function openStore(
  url: string,
  logger: Logger,
  options: StoreOptions = DEFAULT_OPTIONS,
): Promise<Stores> {
  if (isPostgresUrl(url)) {
    // Loaded only here: a SQLite bot never loads the PostgreSQL driver (start-up time, memory).
    const { openPostgresStores } = await import("./postgres/open-postgres.ts");
    return openPostgresStores(url, logger, options);
  }
  return openSqliteStores(sqliteFileOf(url), logger, options);
}
