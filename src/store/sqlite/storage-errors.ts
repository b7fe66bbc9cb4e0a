/**
 * SQLite result codes that say the database cannot take writes right now (another connection
 * holds the lock, the disk is full, the file went read-only or away), as opposed to a row it
 * will never accept. Rows failing this way are kept and retried; other failures are the row's.
 */
const UNAVAILABLE_CODES = [
  "SQLITE_BUSY",
  "SQLITE_LOCKED",
  "SQLITE_FULL",
  "SQLITE_READONLY",
  "SQLITE_IOERR",
  "SQLITE_CANTOPEN",
  "SQLITE_PROTOCOL",
  "SQLITE_NOMEM",
];

export function isStorageUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  // Extended codes (SQLITE_BUSY_SNAPSHOT, SQLITE_READONLY_DBMOVED, SQLITE_IOERR_WRITE, …) share the prefix.
  return (
    typeof code === "string" &&
    UNAVAILABLE_CODES.some((prefix) => code === prefix || code.startsWith(`${prefix}_`))
  );
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
