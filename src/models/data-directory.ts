import { dirname, resolve } from "node:path";

const SQLITE_PREFIX = "sqlite:";

/**
 * The folder holding the bot's files: the SQLite database's folder (`./data` by default),
 * or `./data` when the database lives in memory or on a PostgreSQL server. Local models and
 * their runtime go there.
 */
export function dataDirectory(storageUrl: string, cwd = process.cwd()): string {
  const path = storageUrl.startsWith(SQLITE_PREFIX) ? storageUrl.slice(SQLITE_PREFIX.length) : "";
  if (path === "" || path === ":memory:") return resolve(cwd, "data");
  return resolve(cwd, dirname(path));
}
